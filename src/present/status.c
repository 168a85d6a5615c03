/* The command line's exit statuses (present.h). */
#include "hetune/mpi.h"
#include "hetune/present.h"
#include "util/util.h"

/* The mapping is util's: the library needs it too (which errors are bad input), and the
 * CLI's statuses and the library's must never disagree. */
int ht_present_exit_status(int code)
{
    return ht__exit_status(code);
}

int ht_present_mpi_tune_status(const struct ht_mpi_tune_result *r)
{
    if (r->stopped)
        return 130;
    for (size_t i = 0; r->rank == 0 && i < r->nmodels; i++)
        if (!r->models[i].has_best)
            return 1;
    return 0;
}

int ht_present_mpi_split_status(const struct ht_mpi_split_result *r)
{
    return r->verified == 0 ? 3 : 0;
}
