import pytest

from lawgraph.ingest import nlp


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("ΡΕΝΌΝΣ", "ρενονσ"),
        ("ρενόνς", "ρενονσ"),
        ("Αϋπνία ΐ", "αυπνια ι"),
        ("Διευθυντής", "διευθυντησ"),
        ("Pelinjohtajan ÄÖ", "pelinjohtajan äö"),
        ("Spelledaren Å", "spelledaren å"),
        ("Õiguslik ÜKS", "õiguslik üks"),
    ],
)
def test_fold_strips_greek_accents_only(text, folded):
    assert nlp.fold(text) == folded


def test_words_are_folded_tokens():
    assert nlp.words("Ο Διευθυντής (βλ. Νόμο 81Γ)!") == ["ο", "διευθυντησ", "βλ", "νομο", "81γ"]


def test_shown_words_are_the_same_tokens_as_written():
    text = "Ο ΒΑΛΕΣ και ο Διευθυντής (βλ. Νόμο 81Γ)! Tävlingsledaren"
    shown = nlp.shown_words(text)
    assert shown == ["ο", "βαλες", "και", "ο", "διευθυντής", "βλ", "νόμο", "81γ", "tävlingsledaren"]
    assert [nlp.fold(w) for w in shown] == nlp.words(text)


@pytest.mark.parametrize(
    ("lang", "word", "lemma"),
    [
        ("fi", "rangaistuskorteista", "rangaistuskortti"),
        ("fi", "pelinjohtajan", "pelinjohtaja"),
        ("sv", "spelledaren", "spelledare"),
        ("sv", "straffkortet", "straffkort"),
        ("el", "ΚΆΡΤΕΣ", "καρτα"),
        ("et", "mängijad", "mängija"),
    ],
)
def test_lemma_of_inflected_forms(lang, word, lemma):
    assert nlp.lemma(lang, word) == lemma


def test_unknown_word_falls_back_to_stem():
    word = "blörpzqssa"
    assert nlp.lemma("fi", word) == nlp.stem("fi", word) == "blörpzq"


def test_unknown_compound_keeps_its_known_head():
    # simplemma's greedy mode lemmatises the known tail of an unknown compound
    assert nlp.lemma("fi", "zzqrevokkeja") == "zzqrevokki"


def test_stem_is_folded_and_language_specific():
    assert nlp.stem("el", "ΡΕΝΌΝΣ") == nlp.stem("el", "ρενονς")
    assert nlp.stem("fi", "korteista") != "korteista"


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("el", "Τι γίνεται; Βλέπε παρ. 3 του Νόμου. Τέλος.",
         ["Τι γίνεται;", "Βλέπε παρ. 3 του Νόμου.", "Τέλος."]),
        ("el", "Βλέπε Νόμο 12. Τέλος.", ["Βλέπε Νόμο 12.", "Τέλος."]),
        ("et", "Vaata nt. punkti 3. Teine lause.", ["Vaata nt. punkti 3.", "Teine lause."]),
        ("fi", "Katso ks. 16 §. Toinen virke.", ["Katso ks. 16 §.", "Toinen virke."]),
        ("sv", "Se t.ex. lag 16. Nästa mening.", ["Se t.ex. lag 16.", "Nästa mening."]),
    ],
)  # fmt: skip
def test_sentences_respect_abbreviations_and_greek_question_mark(lang, text, expected):
    assert nlp.sentences(lang, text) == expected


def test_pipeline_sets_folded_lemmas():
    doc = nlp.pipeline("el")("Ο διευθυντής των αγώνων")
    assert [t.lemma_ for t in doc][-1] == "αγων"
    assert nlp.lemmas("sv", "Spelledaren kallas") == ["spelledare", "kalla"]


@pytest.mark.parametrize("lang", ["fi", "sv", "el", "et"])
def test_the_word_attributes_read_are_those_of_a_full_spacy_vocabulary(lang):
    """Only :data:`nlp.READ_ATTRIBUTES` are computed for new words: they must agree with
    what spaCy's own vocabulary gives, on words no pipeline has met before."""
    import spacy

    text = "Ääni; ΡΕΝΌΝΣ (12C1) — «x» ... 3.5 €\n\t sana-kirja, ks. 77 § ok!"
    full = spacy.blank(lang).vocab
    for tok in nlp.pipeline(lang, lemmas=False).tokenizer(text):
        lex = full[tok.text]
        got = (tok.is_alpha, tok.is_punct, tok.is_space, tok.lower_, tok.norm_)
        assert got == (lex.is_alpha, lex.is_punct, lex.is_space, lex.lower_, lex.norm_), tok.text
    ours = nlp.pipeline(lang, lemmas=False).tokenizer("kolme 77")
    assert not any(t.like_num for t in ours)  # not computed: nothing may read it
    assert nlp.pipeline(lang, lemmas=False).vocab.lang == lang
    assert {t.lang_ for t in ours} == {lang}


def test_unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match="unsupported language 'xx'"):
        nlp.pipeline("xx")
