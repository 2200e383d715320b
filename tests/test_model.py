"""Node attributes: one typed mapping, decoded from the store's JSON in one place."""

from __future__ import annotations

import pytest

from lawgraph import store
from lawgraph.ingest.model import ATTR_KEYS, NodeAttrs, decode_attrs


def test_decode_keeps_known_keys_and_their_order():
    attrs = decode_attrs('{"term": "revokki", "targets": ["61", "62"], "pages": []}')
    assert list(attrs) == ["term", "targets", "pages"]
    assert attrs == NodeAttrs(term="revokki", targets=["61", "62"], pages=[])
    assert decode_attrs(None) == {} == decode_attrs("")


@pytest.mark.parametrize("text", ['{"trem": "x"}', '["term"]', '"term"'])
def test_decode_refuses_what_is_not_node_attributes(text):
    with pytest.raises(ValueError, match="not node attributes"):
        decode_attrs(text)


def test_every_stored_node_decodes(con):
    used = set()
    for node in store.nodes(con):  # decodes every node's attributes
        used |= node.attrs.keys()
    assert used <= ATTR_KEYS
    # the typed keys are the ones the books use (none is left over from an old parser)
    assert used == ATTR_KEYS
