"""The report's workload families, in the order the document shows them. A family is a module with
TITLE, FILES (glob patterns under the results folder), PRODUCER (the command that writes them) and
body(ctx, paths) -> markdown; its prose, if any, is bench/report/prose/MODULE.md. To add one, write the
module and list it here."""
from . import medium, blocks, sizes, e3sm_maps, gio, disk, slow, cross_node, subfiling, interposer, libraries, nbbench

FAMILIES = [medium, blocks, e3sm_maps, gio, disk, slow, sizes, cross_node, subfiling, interposer, libraries, nbbench]
