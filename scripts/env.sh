# Sourced by the scripts: let Open MPI run as root (CI containers) and on more
# ranks than cores; keep its shared-memory transport away from ptrace-based
# single copy, which containers often forbid.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# One-sided (rma kernel): Open MPI 4.1's osc/rdma cannot create dynamic windows without
# single copy, and its osc/ucx breaks on repeated attach/detach; sm serves shared-memory
# windows and pt2pt everything else.
export OMPI_MCA_osc=sm,pt2pt
