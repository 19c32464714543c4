"""Built-in calibration texts for SmoothQuant factors: short queries and long passages.

They are written for this purpose (no external data set is needed to prepare a model). What
matters is coverage of lengths (empty, one word, a sentence, passages past the 256-token window)
and of registers (prose, scientific, Markdown with code, non-Latin scripts), because the outlier
channels being measured are systematic across inputs.
"""

from __future__ import annotations

SHORT_TEXTS: tuple[str, ...] = (
    "",
    "a",
    "postgres",
    "hello world",
    "What is this?",
    "x = 1",
    "東京",
    "🚀",
    "How do I rotate an API key?",
    "Does vitamin D reduce the risk of fractures in older adults?",
    "install with pip",
    "Error: connection refused on port 5432",
    "Café au lait, s'il vous plaît.",
    "Which enzyme is inhibited by aspirin?",
    "README",
    "def main() -> None:",
    "Die Katze sitzt auf der Matte.",
    "Как настроить репликацию?",
    "retry with exponential backoff",
    "Mutations in BRCA1 increase breast cancer risk.",
)

LONG_TEXTS: tuple[str, ...] = (
    "Effects of a structured exercise programme on bone mineral density in postmenopausal women. "
    "Osteoporosis is a common condition in older women and is associated with an increased risk "
    "of fracture, loss of independence and mortality. We conducted a randomised controlled trial "
    "in which 312 postmenopausal women aged 55 to 75 years were assigned to a supervised "
    "programme of resistance and impact training three times a week or to usual care for twelve "
    "months. The primary outcome was the change in lumbar spine bone mineral density measured "
    "by dual-energy X-ray absorptiometry; secondary outcomes included femoral neck density, "
    "muscle strength, balance and the number of falls. Adherence averaged 78 percent. Lumbar "
    "spine density increased by 1.2 percent in the exercise group and decreased by 0.9 percent "
    "in the control group (difference 2.1 percentage points, 95% confidence interval 1.3 to 2.9). "
    "Femoral neck density did not differ significantly. Strength and balance improved, and the "
    "rate of falls was lower in the exercise group (incidence rate ratio 0.71). No serious "
    "adverse events were attributed to the intervention. A supervised programme of progressive "
    "resistance and impact exercise is safe and modestly increases spinal bone density.",
    "## Configuring connection pools\n\nThe client keeps a pool of connections per endpoint. "
    "By default the pool holds up to `max_size=10` connections and closes idle ones after 300 "
    "seconds. You can change both when you create the client:\n\n```python\nfrom example "
    "import Client\n\nclient = Client(\n    'db.internal:5432',\n    max_size=32,\n    "
    "idle_timeout=60.0,\n)\nasync with client.acquire() as conn:\n    rows = await "
    "conn.fetch('SELECT id, title FROM pages WHERE namespace = $1', ns)\n```\n\n### When the "
    "pool is exhausted\n\nIf every connection is busy, `acquire()` waits up to `timeout` "
    "seconds and then raises `PoolTimeoutError`. Raise the pool size only if the database can "
    "take the extra sessions; otherwise shorten your transactions. See also: *retries*, "
    "*health checks* and the `QUIRE_DATABASE_URL` environment variable. | option | default |\n"
    "|---|---|\n| max_size | 10 |\n| idle_timeout | 300 |",
    "The city council met on Tuesday evening to debate the proposed budget for the coming year. "
    "After nearly four hours of discussion, members voted seven to two to approve a plan that "
    "increases spending on public transport and road maintenance while freezing most other "
    "departments. Supporters said the investment was overdue: several bus routes had been cut "
    "during the previous decade, and residents of the outer districts complained of long waits "
    "and overcrowded vehicles. Opponents argued that the plan relied on optimistic revenue "
    "forecasts and warned that a downturn could force cuts later. The mayor, who had proposed "
    "the budget in the spring, thanked staff for their work and promised quarterly reports on "
    "progress. Local businesses gave the decision a cautious welcome. The new timetable is "
    "expected to take effect in March, with additional night services on weekends and a pilot "
    "of on-demand minibuses in two neighbourhoods. Residents can comment on the proposals online "
    "until the end of the month, and public meetings will be held in each district library.",
    "Tokyo (東京) is the capital of Japan and one of the most populous metropolitan areas in the "
    "world. 東京タワーは1958年に完成した電波塔で、高さは333メートルです。Paris est la capitale de "
    "la France; ses musées, comme le Louvre et le musée d'Orsay, attirent des millions de "
    "visiteurs. Berlin ist die Hauptstadt Deutschlands und bekannt für seine Geschichte und "
    "Kultur. Москва — столица России, крупнейший по численности населения город страны. "
    "서울은 대한민국의 수도입니다. 北京是中华人民共和国的首都。 "
    "Emoji and symbols also appear in real "
    "documents: 🚀 ✅ ⚠️ → ≥ ≤ ± µ°C, as do accented words such as naïve, résumé, façade, "
    "jalapeño and Ünïcödé. Numbers like 3.14159, 2,718 and 1e-9 and identifiers such as "
    "ef_search, HNSW_M_16 and user@example.com are tokenised into several word pieces each.",
    "Mechanisms of antibiotic resistance in Gram-negative bacteria. The outer membrane of "
    "Gram-negative bacteria limits the entry of many antibiotics, and efflux pumps of the "
    "resistance-nodulation-division family actively export drugs from the periplasm. In "
    "addition, enzymes such as extended-spectrum beta-lactamases and carbapenemases hydrolyse "
    "beta-lactam antibiotics, while target modifications, including mutations in DNA gyrase "
    "and topoisomerase IV, reduce susceptibility to fluoroquinolones. Horizontal gene transfer "
    "via plasmids, transposons and integrons spreads these determinants between species. Here "
    "we sequenced 1,024 clinical isolates of Klebsiella pneumoniae and Escherichia coli "
    "collected from 14 hospitals between 2015 and 2020. Carbapenemase genes were detected in "
    "19% of K. pneumoniae isolates, most frequently blaKPC-2 and blaNDM-1, and were associated "
    "with a small number of high-risk clones. Porin loss combined with increased efflux "
    "conferred intermediate resistance in the absence of carbapenemases. These findings "
    "support genomic surveillance and antimicrobial stewardship to limit further spread.",
    "Frequently asked questions. How do I reset my password? Open the sign-in page, choose "
    "'Forgot password' and follow the link we send by email; the link expires after one hour. "
    "Why was my payment declined? The most common reasons are an expired card, a billing "
    "address that does not match, or a limit set by your bank. Can I export my data? Yes: "
    "from Settings → Privacy choose Export, and you will receive a ZIP archive with your files "
    "in their original formats plus a JSON index. How long do you keep deleted items? Deleted "
    "items stay in the trash for 30 days and are then removed permanently, including from "
    "backups after a further 60 days. Do you support single sign-on? Enterprise plans support "
    "SAML 2.0 and OpenID Connect with the major identity providers. Who can see my documents? "
    "Only members of the workspace you share them with, and administrators according to your "
    "organisation's policy. Where is my data stored? In the region you selected at sign-up.",
)


def calibration_texts() -> list[str]:
    """Every calibration text once, short ones first."""
    return [*SHORT_TEXTS, *LONG_TEXTS]


def calibration_batches(batch_size: int = 8) -> list[list[str]]:
    """Texts grouped the way they will be seen at run time: alone, and in mixed padded batches."""
    batches: list[list[str]] = [[t] for t in SHORT_TEXTS[:8]]
    batches += [[t] for t in LONG_TEXTS]
    batches.append(list(SHORT_TEXTS))
    mixed = list(SHORT_TEXTS[:4]) + list(LONG_TEXTS[:4])
    batches += [mixed[i : i + batch_size] for i in range(0, len(mixed), batch_size)]
    batches.append(list(LONG_TEXTS))
    return batches
