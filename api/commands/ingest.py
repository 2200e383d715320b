"""CLI command: ``lawgraph ingest`` (corpus -> store)."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import click

from lawgraph import store
from lawgraph.ingest.corpus import DEFAULT_CORPUS, CorpusError
from lawgraph.ingest.pipeline import STAGE_NAMES, ingest_corpus

from .options import DB_OPTION

_TERMINATED: list[int] = []
"""The signal that asked this ingest to stop, once one has."""


def _exit_on_sigterm(signum, frame) -> None:
    _TERMINATED.append(signum)
    raise SystemExit(128 + signum)


def _stop_if_terminated() -> None:
    """Stop now if a SIGTERM came before: raised inside a callback that reports and
    ignores exceptions (one that runs around a fork), the first exit is lost."""
    if _TERMINATED:
        raise SystemExit(128 + _TERMINATED[0])


@click.command()
@DB_OPTION
@click.option(
    "--corpus",
    "corpus_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_CORPUS,
    show_default=True,
    help="Folder with manifest.toml.",
)
@click.option("--force", is_flag=True, help="Rebuild even if the input is unchanged.")
@click.option(
    "--warnings/--no-warnings",
    "show_warnings",
    default=True,
    help="List every warning after the summary.",
)
def ingest(db: Path | None, corpus_dir: Path, force: bool, show_warnings: bool) -> None:
    """Parse the corpus and write the store."""
    from tqdm import tqdm

    # no monitor thread: with a thread running, the ingest would not fork its workers
    tqdm.monitor_interval = 0
    bars: dict[str, tqdm] = {}
    stages = ("parse", "check", "cite", "done")

    def progress(doc, stage):
        _stop_if_terminated()
        bar = bars.get(doc.id)
        if bar is None:
            bar = bars[doc.id] = tqdm(
                total=len(stages),
                desc=f"{doc.id:9}",
                unit="step",
                file=sys.stderr,
                leave=True,
                ncols=70,
            )
        bar.set_postfix_str(stage)
        bar.update(1)
        if stage == "done":
            bar.close()

    stage_names = list(STAGE_NAMES)  # not corpus_stages(): its imports would come first
    stage_bar: list[tqdm] = []

    def stage_progress(name):
        _stop_if_terminated()
        if not stage_bar:
            stage_bar.append(
                tqdm(
                    total=len(stage_names),
                    desc="corpus   ",
                    unit="stage",
                    file=sys.stderr,
                    leave=True,
                    ncols=70,
                )
            )
        bar = stage_bar[0]
        if name in stage_names:
            bar.update(stage_names.index(name) - bar.n)
        bar.set_postfix_str(name)

    path = store.resolve_db(db)
    # SIGTERM unwinds like Ctrl-C, so the half-written temp store is removed
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        report = ingest_corpus(
            path, corpus_dir, force=force, progress=progress, stage_progress=stage_progress
        )
    except CorpusError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        for bar in stage_bar:
            bar.update(len(stage_names) - bar.n)
            bar.set_postfix_str("done")
            bar.close()
    if report.skipped:
        click.echo(f"{path}: input unchanged, store is up to date ({report.seconds:.2f} s)")
        return
    for r in report.documents:
        click.echo(r.summary())
        if r.missing_index_labels:
            click.echo(f"  index labels missing from the tree: {', '.join(r.missing_index_labels)}")
    for name, stats in report.stages.items():
        if stats:
            flat = {k: v for k, v in stats.items() if not isinstance(v, dict | list)}
            shown = ", ".join(f"{k} {v}" for k, v in flat.items())
            click.echo(f"{name}: {shown}")
    click.echo(f"stage times: {report.timing_summary()}")
    total = sum(len(r.warnings) for r in report.documents)
    click.echo(f"wrote {path} in {report.seconds:.2f} s ({total} warnings)")
    if show_warnings:
        for r in report.documents:
            for w in r.warnings:
                click.echo(f"warning: {w}", err=True)


COMMANDS: list[click.Command] = [ingest]
