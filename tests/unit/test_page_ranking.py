"""The pieces of published-pages ranking that need no database: page and query languages,
CJK bigrams and identifiers, score fusion, and the per-phrasing fusion rules."""

from __future__ import annotations

import pytest

from quire.indexer.lexical_text import cjk_bigrams, identifiers, lexeme_literal
from quire.indexer.pages.language import (
    normalise_tag,
    page_language,
    path_language,
    query_language,
    text_search_config,
)
from quire.server.pages.search import (
    Candidate,
    PageTuning,
    fuse_arms,
    fuse_phrasings,
    key_tokens,
)
from quire.server.retrieval.fusion import convex, normalise, rrf

ENGLISH = (
    "When you declare other function parameters that are not part of the path parameters, "
    "they are automatically interpreted as query parameters. The query is the set of "
    "key-value pairs that go after the question mark in a URL, separated by ampersands."
)
JAPANESE = (
    "パスパラメータではない関数パラメータを宣言すると、それらは自動的にクエリパラメータとして"
    "解釈されます。クエリはURLの疑問符の後に続くキーと値の組の集合で、アンパサンドで区切られます。"
    "これらはURLの一部なので、本来は文字列です。型を宣言すると変換され、検証されます。"
)
GERMAN = (
    "Wenn Sie weitere Funktionsparameter deklarieren, die nicht Teil der Pfadparameter sind, "
    "werden sie automatisch als Abfrageparameter interpretiert. Die Abfrage ist die Menge der "
    "Schlüssel-Wert-Paare, die nach dem Fragezeichen in einer URL stehen."
)


# --- languages -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tag", "expected"),
    [("en", "en"), ("pt_BR", "pt-br"), (" DE ", "de"), ("zh-Hant", "zh-hant"), ("", None)],
)
def test_normalise_tag(tag: str, expected: str | None) -> None:
    assert normalise_tag(tag) == expected


@pytest.mark.parametrize("bad", ["english!", "e", "123", "en_", "a b"])
def test_normalise_tag_refuses_what_is_not_a_tag(bad: str) -> None:
    assert normalise_tag(bad) is None


@pytest.mark.parametrize(
    ("tag", "config"),
    [
        ("en", "english"),
        ("en-gb", "english"),
        ("de", "german"),
        ("pt-br", "portuguese"),
        ("ja", "simple"),
        ("pl", "simple"),
        (None, "simple"),
    ],
)
def test_text_search_config(tag: str | None, config: str) -> None:
    assert text_search_config(tag) == config


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/ja/tutorial/x.md", "ja"),
        ("/pt-br/guide.md", "pt-br"),
        ("/zh_hant/a/b.md", "zh-hant"),
        ("/es.md", None),  # a page at the root, not a language folder
        ("/go/intro.md", None),  # not a language code docs sites translate into
        ("/tutorial/x.md", None),
    ],
)
def test_path_language(path: str, expected: str | None) -> None:
    assert path_language(path) == expected


@pytest.mark.slow  # 1 s under load (`make test-fast` leaves it out)
def test_page_language_order_of_evidence() -> None:
    # Front matter wins, then confident prose, then the path, then the namespace default.
    assert page_language(path="/ja/x.md", text=ENGLISH, declared="fr") == "fr"
    assert page_language(path="/x.md", text=JAPANESE) == "ja"
    assert page_language(path="/de/x.md", text=GERMAN) == "de"
    assert page_language(path="/ja/x.md", text=ENGLISH) == "en"  # the prose says otherwise
    assert page_language(path="/ja/x.md", text="# Short") == "ja"
    assert page_language(path="/x.md", text="# Short", default="de") == "de"
    assert page_language(path="/x.md", text="# Short") == "en"


def test_page_language_ignores_code() -> None:
    code = "```python\n" + "def handler(request):\n    return request\n" * 40 + "```\n"
    assert page_language(path="/x.md", text=code + GERMAN) == "de"


@pytest.mark.parametrize(
    ("query", "present", "expected"),
    [
        ("クエリパラメータ", ["en", "ja"], "ja"),
        ("查询参数", ["en", "zh"], "zh"),
        ("検証", ["en", "ja"], "ja"),  # han alone, and the namespace has Japanese, not Chinese
        ("테스트 의존성", ["en"], "ko"),
        ("как загрузить файл", ["en", "ru"], "ru"),
        ("CORS middleware", ["en", "ja"], "en"),
        ("Wie kann ich Dateien mit dem Dienst hochladen und speichern", ["en", "de"], "de"),
        ("Wie kann ich Dateien mit dem Dienst hochladen und speichern", ["en"], "en"),
        ("🙂", ["en"], "en"),
        ("", ["en"], "en"),
    ],
)
def test_query_language(query: str, present: list[str], expected: str) -> None:
    assert query_language(query, present=present) == expected


def test_query_language_prefers_the_namespace_variant() -> None:
    assert query_language("как загрузить файл", present=["en", "ru-ru"]) == "ru-ru"
    assert query_language("CORS", present=["de"], default="de") == "de"


# --- CJK and identifiers -------------------------------------------------------------------------


def test_cjk_bigrams_split_at_script_changes_and_drop_short_hiragana() -> None:
    assert cjk_bigrams("レスポンスを返した後にメール通知").split() == [
        "レス",
        "スポ",
        "ポン",
        "ンス",
        "返",
        "後",
        "メー",
        "ール",
        "通知",
    ]
    assert cjk_bigrams("中文搜索").split() == ["中文", "文搜", "搜索"]
    assert cjk_bigrams("no cjk here") == "no cjk here"
    assert "FastAPI" in cjk_bigrams("FastAPIのクエリ").split()


def test_identifiers() -> None:
    found = identifiers(
        "Use app.dependency_overrides or response_model_exclude_unset; see main.py, "
        "3.14, __init__, tutorial009_py310.py and os.path"
    )
    assert found == [
        "app.dependency_overrides",
        "dependency_overrides",
        "response_model_exclude_unset",
        "tutorial009_py310",
        "os.path",
    ]
    assert identifiers("plain words only") == []


def test_lexeme_literal_escapes() -> None:
    assert lexeme_literal(["a_b", "x.y"], "B") == "'a_b':1B 'x.y':1B"
    assert lexeme_literal(["it's"], "D") == "'it''s':1D"
    assert lexeme_literal([]) == ""


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("UploadFile spool_max_size", ["spool_max_size", "uploadfile"]),
        ("OAuth2PasswordBearer and HTTPBearer", ["oauth2passwordbearer", "httpbearer"]),
        ("run with --forwarded-allow-ips", ["forwarded-allow-ips"]),
        ("how do I use Depends", []),
        ("FASTAPI_ENV", ["fastapi_env"]),
    ],
)
def test_key_tokens(query: str, expected: list[str]) -> None:
    assert key_tokens(query) == expected


# --- fusion --------------------------------------------------------------------------------------


def test_rrf_keeps_first_seen_order_on_ties() -> None:
    assert [k for k, _ in rrf([["a", "b"], ["b", "a"]])] == ["a", "b"]
    assert [k for k, _ in rrf([["a"], ["c"]], weights=[1.0, 2.0])] == ["c", "a"]


def test_normalise() -> None:
    assert normalise([("a", 2.0), ("b", 1.0), ("c", 0.0)], "minmax") == {
        "a": 1.0,
        "b": 0.5,
        "c": 0.0,
    }
    z = normalise([("a", 3.0), ("b", 1.0)], "zscore")
    assert z == {"a": pytest.approx(2.0), "b": 0.0}
    assert normalise([("a", 5.0), ("b", 5.0)], "zscore") == {"a": 1.0, "b": 1.0}
    with pytest.raises(ValueError):
        normalise([("a", 1.0)], "rank")


def test_padding_keeps_a_few_strong_matches_strong() -> None:
    # Two matches with almost equal scores: alone, their spread decides everything;
    # padded with the zeros every other chunk scores, both stand far above the rest.
    alone = normalise([("a", 10.0), ("b", 9.9)], "zscore")
    padded = normalise([("a", 10.0), ("b", 9.9)], "zscore", pad_to=40)
    assert alone["b"] == 0.0 and padded["b"] > 2.0


def test_convex_keeps_score_gaps() -> None:
    lexical = [("rare", 30.0), ("x", 3.0), ("y", 2.9)]
    vector = [("y", 0.62), ("x", 0.61), ("z", 0.61), ("w", 0.60), ("rare", 0.60)]
    assert convex([lexical, vector], weights=[1.0, 1.0])[0][0] == "rare"
    assert rrf([[k for k, _ in lexical], [k for k, _ in vector]])[0][0] != "rare"


def _c(path: str, score: float, language: str = "en", keys: int = 0) -> Candidate:
    return Candidate((path, 0), score, language, keys)


def test_another_language_is_demoted() -> None:
    lexical = [_c("/ja/a.md", 5.0, "ja"), _c("/a.md", 5.0)]
    vector = [_c("/ja/a.md", 0.5, "ja"), _c("/a.md", 0.5)]
    tuning = PageTuning()
    assert fuse_arms(lexical, vector, "en", tuning)[0][0] == ("/a.md", 0)
    assert fuse_arms(lexical, vector, "ja", tuning)[0][0] == ("/ja/a.md", 0)
    flat = PageTuning(language_penalty=1.0)
    assert fuse_arms(lexical, vector, "en", flat)[0][0] == ("/ja/a.md", 0)


def test_the_vector_arm_weighs_little_for_a_language_the_model_does_not_know() -> None:
    lexical = [_c("/ja/right.md", 3.0, "ja"), _c("/ja/other.md", 2.0, "ja")]
    vector = [_c("/ja/other.md", 0.9, "ja"), _c("/ja/right.md", 0.1, "ja")]
    fused = fuse_arms(lexical, vector, "ja", PageTuning())
    assert fused[0][0] == ("/ja/right.md", 0)
    english = fuse_arms(lexical, vector, "ja", PageTuning(model_languages=("en", "ja")))
    assert english[0][0] == ("/ja/other.md", 0)


def test_chunks_with_the_query_identifiers_come_first() -> None:
    lexical = [_c("/plain.md", 9.0), _c("/holder.md", 1.0, keys=1)]
    vector = [_c("/plain.md", 0.9), _c("/holder.md", 0.1)]
    assert fuse_arms(lexical, vector, "en", PageTuning())[0][0] == ("/holder.md", 0)


def test_phrasings_fuse_with_the_query_weighing_most() -> None:
    query = [(("/a.md", 0), 2.0), (("/b.md", 0), 1.0)]
    alternative = [(("/b.md", 0), 2.0), (("/a.md", 0), 1.0)]
    fused = fuse_phrasings([query, alternative], PageTuning())
    assert fused[0][0] == ("/a.md", 0)
    assert fuse_phrasings([query], PageTuning()) == query
    # Three alternatives that agree outweigh the query (each weighs half of it).
    outvoted = fuse_phrasings([query, alternative, alternative, alternative], PageTuning())
    assert outvoted[0][0] == ("/b.md", 0)


def test_an_unknown_fusion_is_refused_not_replaced() -> None:
    lexical, vector = [_c("/a.md", 1.0)], [_c("/a.md", 0.5)]
    with pytest.raises(ValueError, match="fusion"):
        fuse_arms(lexical, vector, "en", PageTuning(fusion="convx"))
    rankings = [[(("/a.md", 0), 1.0)], [(("/a.md", 0), 1.0)]]
    with pytest.raises(ValueError, match="phrasing fusion"):
        fuse_phrasings(rankings, PageTuning(phrasing_fusion="rff"))
