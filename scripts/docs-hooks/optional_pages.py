"""MkDocs hook (mkdocs.yml `hooks:`): leaves out of the nav the pages that other parts of issue 39
write, while their files are not in the tree yet, so the site builds --strict before and after
they land. Only these paths may be missing; any other nav entry without its file stays, and
strict fails on it."""
import os

OPTIONAL = ("tutorials/", "troubleshooting.md")


def _keep(entry, docs_dir):
    """The entry without its missing optional pages; None when nothing of it is left."""
    if isinstance(entry, str):
        optional = entry.startswith(OPTIONAL)
        return None if optional and not os.path.exists(os.path.join(docs_dir, entry)) else entry
    if isinstance(entry, list):
        kept = [k for k in (_keep(e, docs_dir) for e in entry) if k is not None]
        return kept or None
    if isinstance(entry, dict):
        kept = {title: k for title, value in entry.items() if (k := _keep(value, docs_dir)) is not None}
        return kept or None
    return entry


def on_config(config):
    config["nav"] = _keep(config["nav"], config["docs_dir"]) or []
    return config
