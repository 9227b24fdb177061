/* The self-measured families' kinds of outcome, a file each here: its values'
 * names (part of every committed matrix: don't change one), its cell letters,
 * its row of the cell legend and the pure decision that gives its value.  outcome.c's table registers
 * each with one line, as apis.def registers calls. */
#ifndef CTS_CORE_OUTCOMES_H
#define CTS_CORE_OUTCOMES_H

#include "../cts.h"
#include "../family_obs.h"
#include "../outcome.h"

#define CTS_OVERLAP_VALUES 5 /* enum cts_overlap's, NA included */

extern const char *const cts_overlap_names[CTS_OVERLAP_VALUES], *const cts_overlap_letters[CTS_OVERLAP_VALUES];
extern const char *const cts_capture_names[CTS_CAP_OUTCOME_COUNT], *const cts_capture_letters[CTS_CAP_OUTCOME_COUNT];
extern const char *const cts_depth_names[CTS_DEPTH_COUNT], *const cts_depth_letters[CTS_DEPTH_COUNT];
extern const char *const cts_stall_names[CTS_STALL_COUNT], *const cts_stall_letters[CTS_STALL_COUNT];
extern const char *const cts_pool_names[CTS_POOL_COUNT], *const cts_pool_letters[CTS_POOL_COUNT];
extern const struct cts_legend_row cts_overlap_legend, cts_capture_legend, cts_depth_legend, cts_stall_legend,
    cts_pool_legend;
/* Each kind's verdict from one repetition (outcome.h, from_rep). */
int cts_overlap_from_rep(const struct cts_rep *r, struct cts_verdict *v);
int cts_capture_from_rep(const struct cts_rep *r, struct cts_verdict *v);
int cts_depth_from_rep(const struct cts_rep *r, struct cts_verdict *v);
int cts_stall_from_rep(const struct cts_rep *r, struct cts_verdict *v);
int cts_pool_from_rep(const struct cts_rep *r, struct cts_verdict *v);
extern const struct cts_evidence cts_pair_evidence, cts_staged_evidence, cts_capture_evidence, cts_depth_evidence,
    cts_stall_evidence, cts_pool_evidence;

#endif
