"""CLI command: ``lawgraph dictionaries`` (build the dictionary index once per install)."""

from __future__ import annotations

import click

from lawgraph.ingest import languages, lemma_dict


@click.command("dictionaries")
@click.option("--force", is_flag=True, help="Build again even where the index is present.")
@click.option("--check", is_flag=True, help="Only say whether each language's index is usable.")
def dictionaries(force: bool, check: bool) -> None:
    """Build the index of simplemma's dictionaries that makes an ingest open them at once.

    Built from simplemma's own data for every language lawgraph knows, in the Python
    environment (or in $LAWGRAPH_DICTIONARY_INDEX); an ingest works without it, only
    slower.
    """
    langs = [c for c in languages.codes() if languages.get(c).lemmatiser == "simplemma"]
    click.echo(f"dictionary index: {lemma_dict.index_dir()}")
    if check:
        for lang in langs:
            click.echo(f"{lang}: {lemma_dict.index_status(lang)}")
        return

    def report(lang: str, what: str) -> None:
        click.echo(f"{lang}: {what}")

    try:
        lemma_dict.build_index(langs, force=force, report=report)
    except ImportError as exc:
        raise click.ClickException(f"marisa-trie is not installed ({exc})") from exc
    except OSError as exc:
        raise click.ClickException(
            f"cannot write the index ({exc}); set {lemma_dict.INDEX_ENV} to a writable folder"
        ) from exc


COMMANDS: list[click.Command] = [dictionaries]
