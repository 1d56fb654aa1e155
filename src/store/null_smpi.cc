/*
 * The null backend's network leg under SimGrid SMPI (COLIO_SMPI builds only):
 * the bytes of each access travel between the rank's host and its storage
 * target's host over the simulated platform, so the distance to the I/O node
 * and the sharing of its links (TAPIOCA's C2, sec. 4.1) are simulated, not
 * modelled by colio itself. The platform names the target: a host property
 * colio_ionode="HOST" (sim/platforms/generate.py writes it). Hosts without
 * one charge only the null model's sleep. C++ because S4U's host-to-host
 * transfer (Comm::sendto) has no C binding in SimGrid 3.32.
 */
#include <simgrid/s4u.hpp>
#include <smpi/smpi.h>

#include <cstdint>

extern "C" void colio_smpi_storage_transfer(int is_write, int64_t bytes)
{
    if (bytes <= 0)
        return;
    simgrid::s4u::Host *self = simgrid::s4u::this_actor::get_host();
    const char *name = self->get_property("colio_ionode");
    simgrid::s4u::Host *target = name ? simgrid::s4u::Host::by_name_or_null(name) : nullptr;
    if (target == nullptr)
        return;
    smpi_bench_end(); /* simulator time, not the rank's computation */
    if (is_write)
        simgrid::s4u::Comm::sendto(self, target, (uint64_t)bytes);
    else
        simgrid::s4u::Comm::sendto(target, self, (uint64_t)bytes);
    smpi_bench_begin();
}
