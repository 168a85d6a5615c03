/* The command line's exit statuses (present.h). */
#include "hetune/present.h"
#include "util/util.h"

/* The mapping is util's: the library needs it too (which errors are bad input), and the
 * CLI's statuses and the library's must never disagree. */
int ht_present_exit_status(int code)
{
    return ht__exit_status(code);
}
