"""Record what a real Honcho counts as each corpus text's `token_count` (the tokenizer's truth).

    python tests/emulator/record_token_counts.py --base-url http://127.0.0.1:8000 [--corpus F]

Stores the corpus texts as messages in a throwaway workspace (deleted afterwards) and writes
`data/token_counts.json`: `{"server": version, "texts": [[text, token_count], ...]}`. The
texts are this project's own docs cut into paragraphs plus short lines in other scripts.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import roncho
from roncho import MessageCreate

HERE = Path(__file__).resolve().parent
OUT = HERE / "data" / "token_counts.json"
BATCH = 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--corpus", type=Path, help="a JSON list of texts (default: the stored)")
    args = parser.parse_args()
    if args.corpus:
        texts = json.loads(args.corpus.read_text(encoding="utf-8"))
    else:
        texts = [text for text, _ in json.loads(OUT.read_text(encoding="utf-8"))["texts"]]
    counted: list[list[object]] = []
    with roncho.scratch_workspace(args.base_url, "roncho-tokens", read_timeout=60) as client:
        version = client.server_version()
        client.get_or_create_peer("p")
        client.get_or_create_session("s")
        for start in range(0, len(texts), BATCH):
            chunk = texts[start : start + BATCH]
            made = client.add_messages("s", [MessageCreate("p", text) for text in chunk])
            counted += [[text, m.token_count] for text, m in zip(chunk, made, strict=True)]
    payload = {"server": version, "texts": counted}
    OUT.write_text(json.dumps(payload, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(counted)} texts, {sum(int(str(n)) for _, n in counted)} tokens -> {OUT}")


if __name__ == "__main__":
    main()
