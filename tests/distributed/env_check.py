"""Started by the launcher: torch's environment variables agree with the process group."""
import os
import sys

import tapegrad.distributed as dist

dist.init_process_group("gloo", init_method="env://")
assert int(os.environ["RANK"]) == dist.get_rank()
assert int(os.environ["WORLD_SIZE"]) == dist.get_world_size()
assert int(os.environ["LOCAL_RANK"]) == dist.get_rank()  # one machine
print("OK", dist.get_rank(), " ".join(sys.argv[1:]))
dist.destroy_process_group()
