"""MkDocs hooks: pages other helpers add (distributed training, devices) join the Guides
section of the navigation when their files exist, so the build stays strict either way."""
from pathlib import Path

OPTIONAL_GUIDES = {"Distributed training": "distributed.md", "Accelerator devices": "devices.md"}


def on_config(config):
    docs = Path(config["docs_dir"])
    for section in config["nav"]:
        if isinstance(section, dict) and "Guides" in section:
            for title, page in OPTIONAL_GUIDES.items():
                if (docs / page).exists():
                    section["Guides"].append({title: page})
    return config
