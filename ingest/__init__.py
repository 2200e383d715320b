"""Text -> model: cleaning, per-document parsers and the store."""

import os

# The ingest runs in processes (the parse workers, the alignment's workers, the process
# beside them for the glossary and the search) and nothing in lawgraph multiplies a dense
# matrix large enough for a BLAS thread to help. OpenBLAS, which numpy and SciPy each
# bundle, starts a thread per core in every process that loads it; those threads compete
# with the processes for the cores (see the README's ingest section). Set before numpy
# loads: the store's modules import this package, so it holds for every lawgraph process
# that does not load numpy first. A value of OPENBLAS_NUM_THREADS set in the environment
# is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .corpus import CorpusError, load_manifest
from .parse import parse_document
from .pipeline import IngestReport, ingest_corpus

__all__ = ["CorpusError", "IngestReport", "ingest_corpus", "load_manifest", "parse_document"]
