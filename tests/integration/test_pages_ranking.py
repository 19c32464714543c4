"""Published-pages ranking through SearchPages on a small handcrafted site: stemming, field
weights, front matter summaries, languages (a translated copy, a page in a language without a
stemmer), rare identifiers, and queries of every shape. Real server, real model, real
PostgreSQL; the FastAPI site's labelled questions are measured by benchmarks/pages_quality.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from quire.client import AsyncQuireClient
from quire.v1 import pages_pb2
from tests.conftest import Harness, Keys
from tests.support.site_server import SiteServer

# The module takes 5 s (its own site synced) under load (`make test-fast` leaves it out).
pytestmark = [pytest.mark.asyncio(loop_scope="session"), pytest.mark.slow]
NEEDS_MODEL = True
NS = "handbook"

FILLER = (
    "The service keeps its settings in one place and reads them at start-up. Each request is "
    "handled by a function that receives typed parameters and returns a response object. "
)

PAGES: dict[str, str] = {
    # No "override", "dependency" or "tests" in this page: only their stems match.
    "/guide/testing-overrides.md": (
        "# Testing Dependencies with Overrides\n\n"
        "When a handler relies on an external service, swap the provider while the suite "
        "runs: register overriding providers and remove them afterwards.\n\n"
        "```python\napp.provider_overrides[get_db] = fake_db\n```\n\n" + FILLER * 3
    ),
    # A translation keeps the English title and code, as translated docs often do.
    "/ja/guide/testing-overrides.md": (
        "# Testing Dependencies with Overrides\n\n"
        "外部サービスに依存するハンドラーをテストするときは、テストの実行中にその依存関係を"
        "置き換えます。プロバイダーのオーバーライドを登録し、終わったら削除します。\n\n"
        "```python\napp.provider_overrides[get_db] = fake_db\n```\n\n"
        "この方法を使うと、本番のサービスに接続せずにテストを実行できます。設定はアプリケーション"
        "全体で共有され、各テストの前後でリセットされます。依存関係の置き換えは簡単です。\n"
    ),
    "/guide/streaming.md": (
        "# Streaming Responses\n\n"
        "Send a large body piece by piece instead of building it in memory: return a generator "
        "and the server writes each piece as it is produced.\n\n" + FILLER * 2
    ),
    "/guide/tasks.md": (
        "# Background Tasks\n\n"
        "Run work after the response was sent, such as sending a notification email.\n\n"
        + FILLER
        * 2
    ),
    # Passing mentions of the exact words, in the text only.
    "/reference/api.md": (
        "# API Reference\n\n"
        "Every class of the package, with its parameters: how to override a dependency in "
        "tests, testing dependencies, streaming utilities and task queues.\n\n" + FILLER
    ),
    "/guide/summary-only.md": (
        "---\ntitle: Deployment Checklist\n"
        "description: What to verify before a release goes out, including the flamingo audit.\n"
        "keywords: [rollout, canary]\n---\n\n"
        "# Deployment Checklist\n\nGo through each item in order.\n\n" + FILLER * 2
    ),
    "/guide/cache-a.md": (
        "# Caching\n\nTune `cache_backend_ttl_seconds` to keep entries longer.\n\n" + FILLER * 2
    ),
    "/guide/cache-b.md": (
        "# Redis\n\nThe Redis adapter reads cache_backend_ttl_seconds as well.\n\n" + FILLER * 2
    ),
    "/guide/cache-c.md": (
        "# Limits\n\nOne more mention: `cache_backend_ttl_seconds` caps at a day.\n\n" + FILLER
    ),
    "/guide/cache-prose.md": (
        "# Cache Time to Live Explained\n\n"
        "How long the cache keeps an entry (its time to live, in seconds) decides how fresh "
        "answers are; a longer time to live means fewer backend calls and staler answers.\n\n"
        + FILLER
        * 2
    ),
    # Too little prose to tell its language: the namespace default.
    "/guide/short.md": "# Changelog\n\nNothing yet.\n",
    "/pl/przewodnik/wstep.md": (
        "# Wprowadzenie\n\n"
        "Ta strona opisuje, jak skonfigurować usługę krok po kroku. Najpierw zainstaluj pakiet, "
        "potem uruchom serwer i sprawdź, czy odpowiada na zapytania. Konfiguracja jest zapisana "
        "w jednym pliku i wczytywana przy starcie. Każde żądanie obsługuje funkcja, która "
        "otrzymuje parametry i zwraca odpowiedź.\n"
    ),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, harness: Harness) -> Iterator[SiteServer]:
    root: Path = tmp_path_factory.mktemp("handbook")
    index = ["# Handbook", ""]
    for path, text in PAGES.items():
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        index.append(f"- [{path}]({path})")
    (root / "llms.txt").write_text("\n".join(index) + "\n", encoding="utf-8")
    server = SiteServer(root=root)
    with server:
        harness.running.state.settings.allow_sources.append(server.origin)  # type: ignore[attr-defined]
        yield server


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def client(harness: Harness, site: SiteServer) -> AsyncIterator[AsyncQuireClient]:
    keys: Keys = await harness.keys("ranking-org")
    async with AsyncQuireClient(harness.address, api_key=keys.all) as c:
        report = None
        async for message in c.sync_pages(namespace=NS, url=f"{site.url}/llms.txt"):
            if isinstance(message, pages_pb2.SyncReport):
                report = message
        assert report is not None and report.failed == 0, report
        yield c


async def pages_for(client: AsyncQuireClient, query: str, **kwargs: object) -> list[str]:
    result = await client.search_pages(namespace=NS, query=query, **kwargs)  # type: ignore[arg-type]
    return list(dict.fromkeys(hit.path for hit in result.hits))


async def test_every_page_knows_its_language(client: AsyncQuireClient) -> None:
    listed = await client.list_pages(namespace=NS, limit=200)
    languages = {page.path: page.language for page in listed.pages}
    assert languages["/ja/guide/testing-overrides.md"] == "ja"
    # Polish has no PostgreSQL stemmer: still indexed (with `simple`), still found.
    assert languages["/pl/przewodnik/wstep.md"] == "pl"
    assert {languages[p] for p in PAGES if not p.startswith(("/ja/", "/pl/"))} == {"en"}
    assert len(languages) == len(PAGES)
    assert (await pages_for(client, "skonfigurować usługę krok po kroku"))[0] == (
        "/pl/przewodnik/wstep.md"
    )


async def lexical_pages(
    harness: Harness, query: str, *, config: str | None = None, **tuning: object
) -> list[str]:
    """The full-text arm alone, with the serving tuning changed by `tuning`; `config`: the
    query's stemming configuration instead of its language's."""
    from quire.server.pages import search

    settings = search.PageTuning(**tuning)  # type: ignore[arg-type]
    async with harness.pool.acquire() as conn:
        org_id = await conn.fetchval("SELECT org_id FROM organisations WHERE name = 'ranking-org'")
        language = search.QueryLanguage.of(query, present=["en", "ja", "pl"], default="en")
        if config is not None:
            language = search.QueryLanguage(language.language, config)
        found = await search._lexical(
            conn, search.SearchedNamespace(org_id, NS), query, language, settings
        )
    return list(dict.fromkeys(c.key[0] for c in found))


async def test_stemming_matches_other_word_forms(
    client: AsyncQuireClient, harness: Harness
) -> None:
    # The testing page says "Testing Dependencies with Overrides", never "override",
    # "dependency" or "tests"; the reference page says those words in passing.
    query = "override a dependency in tests"
    assert (await lexical_pages(harness, query))[0] == "/guide/testing-overrides.md"
    assert (await lexical_pages(harness, query, config="simple"))[0] == "/reference/api.md"
    assert (await pages_for(client, query))[0] == "/guide/testing-overrides.md"
    assert (await pages_for(client, "stream a response"))[0] == "/guide/streaming.md"
    assert (await pages_for(client, "background task"))[0] == "/guide/tasks.md"


async def test_an_english_question_does_not_land_on_the_translation(
    client: AsyncQuireClient, harness: Harness
) -> None:
    query = "testing dependencies with overrides provider_overrides"
    found = await pages_for(client, query)
    assert found[:2] == ["/guide/testing-overrides.md", "/ja/guide/testing-overrides.md"]
    # Both pages hold the title and the code; the English one leads on language alone.
    found = await pages_for(client, "Testing Dependencies with Overrides")
    assert found[0] == "/guide/testing-overrides.md"


async def test_a_japanese_question_finds_the_japanese_page(client: AsyncQuireClient) -> None:
    found = await pages_for(client, "依存関係をオーバーライドしてテスト")
    assert found[0] == "/ja/guide/testing-overrides.md"


async def test_titles_outweigh_passing_mentions(client: AsyncQuireClient, harness: Harness) -> None:
    # The reference page holds "testing dependencies" word for word in its text.
    query = "testing dependencies"
    assert (await lexical_pages(harness, query))[0] == "/guide/testing-overrides.md"
    flat = await lexical_pages(harness, query, field_weight=0.0)
    assert flat[0] == "/reference/api.md"
    assert (await pages_for(client, query))[0] == "/guide/testing-overrides.md"
    assert (await pages_for(client, "streaming"))[0] == "/guide/streaming.md"


async def test_front_matter_summary_is_searchable(client: AsyncQuireClient) -> None:
    # "flamingo" and "canary" are only in the front matter's description and keywords.
    assert (await pages_for(client, "flamingo audit"))[0] == "/guide/summary-only.md"
    assert (await pages_for(client, "canary"))[0] == "/guide/summary-only.md"
    listed = await client.list_pages(namespace=NS, prefix="/guide/summary-only.md")
    assert listed.pages[0].description.startswith("What to verify before a release")
    read = await client.read_page(namespace=NS, path="/guide/summary-only.md")
    assert "flamingo" not in read.content  # front matter is not page text


async def test_a_rare_identifier_puts_its_pages_first(client: AsyncQuireClient) -> None:
    holders = {"/guide/cache-a.md", "/guide/cache-b.md", "/guide/cache-c.md"}
    for query in ("cache_backend_ttl_seconds", "what does cache_backend_ttl_seconds do"):
        found = await pages_for(client, query)
        assert set(found[:3]) == holders, (query, found)
    # The page about the same topic in prose comes after all three.
    found = await pages_for(client, "cache_backend_ttl_seconds time to live")
    assert set(found[:3]) == holders, found


@pytest.mark.parametrize(
    "query",
    [
        "a",
        "?",
        "🙂",
        "🙂🙂 tasks 🙂",
        "the of and to in",
        "Тестирование зависимостей",
        "테스트 의존성",
        "اختبار",
        "x" * 500,
        ("override a dependency in tests " * 17)[:500],
        "'\"\\%_*():&|!<>",
    ],
)
async def test_queries_of_any_shape_get_an_answer_not_an_error(
    client: AsyncQuireClient, query: str
) -> None:
    result = await client.search_pages(namespace=NS, query=query, limit=20)
    assert len(result.hits) <= 20
    assert [hit.rank for hit in result.hits] == list(range(1, len(result.hits) + 1))
    assert all(hit.path in PAGES for hit in result.hits)


async def test_rankings_are_repeatable(client: AsyncQuireClient) -> None:
    for query in ("override a dependency in tests", "cache", "streaming responses"):
        first = await client.search_pages(namespace=NS, query=query)
        second = await client.search_pages(namespace=NS, query=query)
        assert [(h.chunk_id, h.score) for h in first.hits] == [
            (h.chunk_id, h.score) for h in second.hits
        ]


async def test_the_namespace_language_is_a_bounded_tag(
    client: AsyncQuireClient, site: SiteServer
) -> None:
    from quire.client import exceptions as qe

    longest = "de-abcdefgh-abcdefgh-abcdefgh-abcde"
    assert len(longest) == 35
    report = None
    async for message in client.sync_pages(
        namespace="handbook-de", url=f"{site.url}/llms.txt", language=longest
    ):
        if isinstance(message, pages_pb2.SyncReport):
            report = message
    assert report is not None and report.failed == 0
    listed = await client.list_pages(namespace="handbook-de", limit=200)
    languages = {page.path: page.language for page in listed.pages}
    # Pages whose language shows keep it; the default is only a fallback.
    assert languages["/guide/streaming.md"] == "en"
    assert languages["/ja/guide/testing-overrides.md"] == "ja"
    assert languages["/guide/short.md"] == longest
    for bad in (longest + "x", "english!", "e", "de de"):
        with pytest.raises(qe.InvalidRequest) as info:
            async for _ in client.sync_pages(
                namespace="handbook-bad", url=f"{site.url}/llms.txt", language=bad
            ):
                pass
        assert [f for f, _ in info.value.field_violations] == ["start.language"], bad
