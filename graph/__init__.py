"""The networkx knowledge graph built from the store, and its exports."""

from .build import build_graph
from .export import export_json

__all__ = ["build_graph", "export_json"]
