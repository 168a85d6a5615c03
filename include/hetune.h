/* hetune — OpenCL performance portability on heterogeneous machines.
 * The umbrella header: includes every public module header. */
#ifndef HETUNE_H
#define HETUNE_H

#include "hetune/error.h"
#include "hetune/util.h"
#include "hetune/expr.h"
#include "hetune/platform.h"
#include "hetune/space.h"
#include "hetune/spec.h"
#include "hetune/exec.h"
#include "hetune/supervise.h"
#include "hetune/search.h"
#include "hetune/store.h"
#include "hetune/predict.h"
#include "hetune/split.h"
#include "hetune/coexec.h"
#include "hetune/tune.h"
#include "hetune/report.h"
#include "hetune/workflow.h"
#include "hetune/runtime.h"
#include "hetune/interop.h"
#include "hetune/mpi.h"
#include "hetune/present.h"

#define HETUNE_VERSION "0.1.0"

#endif
