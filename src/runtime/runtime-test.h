/* Hooks of src/runtime/runtime.c for its unit tests (tests/unit/test_runtime.c) alone:
 * what no public call can set up on the machines the tests run on. Internal (ht__, not
 * exported by libhetune.so); no other module includes this. */
#ifndef HETUNE_RUNTIME_TEST_H
#define HETUNE_RUNTIME_TEST_H

#include <stddef.h>
#include <stdint.h>

struct ht_runtime;

/* Watches rt's next HT_RUNTIME_WATCH_LAUNCHES launches as after a mode AUTO decision that
 * split with device `fastest` (an index of info->devices) measured alone in alone_s
 * (ht_runtime_opts.fallback_ratio): on two CPU devices of PoCL the decision never
 * splits, so the test opens mode SPLIT and watches it so. No effect on a runtime that
 * does not split. */
void ht__runtime_watch_as_auto(struct ht_runtime *rt, size_t fastest, double alone_s);

/* Takes the split's watched median as median_s whatever its launches took (<= 0: as they
 * took), so that the watch's two outcomes after a fallback (the device alone slower than
 * the split by ht_runtime_opts.fallback_ratio: the split again; else it stays alone) can
 * be set up on devices whose times no test chooses. Only the median the fallback is
 * judged by and the device alone is compared with changes. */
void ht__runtime_watch_split_as(struct ht_runtime *rt, double median_s);

/* Takes the wall times of the split's first HT_RUNTIME_WATCH_LAUNCHES watched launches
 * as walls[0..HT_RUNTIME_WATCH_LAUNCHES) whatever they took (NULL: as they took), for the
 * fallback's judgement (runtime.h). */
void ht__runtime_watch_walls_as(struct ht_runtime *rt, const double *walls);

/* Takes the split's median at a recheck (after the device alone stayed) as median_s
 * whatever its launches took (<= 0: as they took): the split stays when it is within the
 * ratio of the device alone's last launches, else the device runs alone again. first > 0:
 * the first recheck comes after that many launches alone, not after as many as the
 * switches' times make (then twice as many each time, as without). */
void ht__runtime_recheck_split_as(struct ht_runtime *rt, double median_s, unsigned first);

/* The k-th switch from now between the split and the device alone (the fallback, the
 * return, a recheck's two) fails as a device that cannot be set up would, before anything
 * changes: the runtime keeps what runs and says so (0: none fails). */
void ht__runtime_fail_switch(struct ht_runtime *rt, unsigned k);

/* The launches alone before the split is tried again after k rechecks it lost, from the
 * last switches' times and the device alone's median launch (runtime.c says how). */
uint64_t ht__runtime_recheck_launches(double alone_switch_s, double split_switch_s, size_t n,
                                      double alone_s, unsigned k);

#endif
