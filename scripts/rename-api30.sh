#!/bin/sh
# Issue 27 item 3: the public functions that were plumbing between modules or a module's
# own helpers become internal, ht_X -> ht__X (docs/architecture.md, "The doors"). One
# script, so that it can be run again on a branch that still writes the old names (as
# the merge of another branch that used them). Idempotent: a second run changes nothing.
# The declarations themselves moved by hand, into internal headers and friend headers.
# "struct ht_coexec_estimate" is a type of the same name as a function: types keep theirs,
# except the three of workflow's steps that went internal with them ($types).
#
#   sh scripts/rename-api30.sh [DIR...]    (default: src include tests examples bench
#                                           python docs fuzz)
set -eu
cd "$(dirname "$0")/.."
names='
ht_coexec_opts_init ht_coexec_result_destroy ht_coexec_create ht_coexec_check_spec
ht_coexec_check_spec_probing ht_coexec_free ht_coexec_sched ht_coexec_plan
ht_coexec_set_factors ht_coexec_run ht_coexec_verify ht_coexec_dump ht_coexec_output
ht_coexec_bind ht_coexec_alloc ht_coexec_adopt_host ht_coexec_memory_bound
ht_coexec_free_host ht_coexec_launch ht_coexec_refine ht_coexec_model
ht_coexec_reset_models ht_coexec_bus_models ht_coexec_set_host_memory
ht_coexec_set_bandwidth ht_coexec_estimate ht_coexec_plan_bus
ht_split_sched_opts_init ht_split_sched_create ht_split_sched_get_ops ht_split_sched_reset
ht_split_sched_next ht_split_sched_report ht_split_sched_plan ht_split_sched_free
ht_device_lock ht_device_lock_path ht_device_unlock ht_repeats_decide ht_repeats_margin
ht_repeats_verdict_name ht_cache_dir ht_session_time_limit
ht_prebuild_counts ht_prebuild_create ht_prebuild_free ht_prebuild_submit ht_prebuild_take
ht_session_reference ht_session_reference_needed ht_session_set_cut
ht_driver_caches
ht_recording_bind ht_recording_count ht_recording_device ht_recording_eval
ht_recording_format ht_recording_lookup ht_recording_optimum
ht_search_evaluated ht_search_in_flight ht_search_known ht_search_should_cut
ht_spec_param_index ht_type_parse
ht_workflow_alone ht_workflow_plan_copy ht_workflow_refine_alone ht_workflow_refine_free
ht_workflow_refine_run ht_workflow_result_copy ht_workflow_store_split
ht_workflow_sweep_point
ht_cl_err_name
ht_store_get_lease ht_store_lookup_eval
'
types='ht_workflow_split_record ht_workflow_refine_opts ht_workflow_sweep'
talt=$(echo $types | sed 's/ /|/g; s/\bht_//g')
alt=$(echo $names | sed 's/ /|/g; s/\bht_//g')
[ $# -gt 0 ] || set -- src include tests examples bench python docs fuzz
files=$(grep -rlE "\bht_($alt|$talt)\b" "$@" 2>/dev/null || true)
if [ -n "$files" ]; then
# \b on both sides: ht_coexec_free is not ht_coexec_free_host; not after "struct "/"enum ".
echo "$files" | xargs perl -pi -e "s/(?<!struct )(?<!enum )\bht_($alt)\b/ht__\$1/g"
echo "$files" | xargs perl -pi -e "s/\bht_($talt)\b/ht__\$1/g"
fi
# One more character in the name: the continuation lines of a call or declaration that
# were aligned under its opening parenthesis move one column right with it (a line
# indented to the column just after "ht__x(" is one that was aligned to the old "ht_x(").
grep -rlE "\bht__($alt|$talt)\b" "$@" | ALT="$alt|$talt" python3 -c '
import os, re, sys
pat = re.compile(r"\bht__(?:%s)\b" % os.environ["ALT"])
for path in sys.stdin.read().split():
    lines = open(path).read().split("\n")
    changed = False
    for i, l in enumerate(lines):
        for m in pat.finditer(l):
            c = l.find("(", m.end())
            if c != m.end():
                continue
            depth = l[c:].count("(") - l[c:].count(")")
            j = i + 1
            while depth > 0 and j < len(lines):
                n = lines[j]
                if len(n) - len(n.lstrip(" ")) != c or not n.strip():
                    break
                lines[j] = " " + n
                changed = True
                depth += n.count("(") - n.count(")")
                j += 1
    if changed:
        open(path, "w").write("\n".join(lines))
'
