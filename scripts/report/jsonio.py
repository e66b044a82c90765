"""Compact JSON for the bench results: long lists of records are stored as a table
(``{"columns": [...], "rows": [[...], ...]}``, one record per line) so docs/bench/*.json stay
small and diff line by line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def to_table(records: list[dict[str, Any]], columns: list[str] | None = None
             ) -> dict[str, Any]:
    cols = list(columns or [])
    for r in records:
        for k in r:
            if k not in cols:
                cols.append(k)
    return {"columns": cols, "rows": [[r.get(c) for c in cols] for r in records]}


def from_table(t: Any) -> list[dict[str, Any]]:
    """Records from a table (or a plain list of records, returned as is)."""
    if isinstance(t, list):
        return t
    if not isinstance(t, dict) or "columns" not in t:
        return []
    cols = t["columns"]
    return [dict(zip(cols, row)) for row in t["rows"]]


def dumps(doc: dict[str, Any]) -> str:
    """JSON with indent 1, except that each row of a table is one line."""
    marker = "\x00ROW{}\x00"
    rows: list[str] = []

    def walk(x: Any) -> Any:
        if isinstance(x, dict):
            if set(x) == {"columns", "rows"}:
                out = {"columns": x["columns"], "rows": []}
                for r in x["rows"]:
                    rows.append(json.dumps(r, separators=(",", ":")))
                    out["rows"].append(marker.format(len(rows) - 1))
                return out
            return {k: walk(v) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x

    text = json.dumps(walk(doc), indent=1, ensure_ascii=False)
    for i, r in enumerate(rows):
        text = text.replace(json.dumps(marker.format(i)), r, 1)
    return text + "\n"


def write(path: Path, doc: dict[str, Any]) -> None:
    path.write_text(dumps(doc))
