"""Text -> model: cleaning, per-document parsers and the store."""

import os

# The ingest runs in processes (the parse workers, the alignment's workers, the process
# beside them for the glossary and the search) and multiplies no dense matrices large
# enough for a BLAS thread to help. OpenBLAS, which numpy and SciPy each bundle, starts a
# thread per core in every process that loads it; those threads compete with the
# processes for the cores, and starting them costs a quarter of a second of processor
# time per process on two cores (see the README's benchmarks). Set before numpy loads, so
# it holds for a process that imports the ingest first (``lawgraph ingest``, the
# benchmarks); a value set in the environment is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .corpus import CorpusError, load_manifest
from .parse import parse_document
from .pipeline import IngestReport, ingest_corpus

__all__ = ["CorpusError", "IngestReport", "ingest_corpus", "load_manifest", "parse_document"]
