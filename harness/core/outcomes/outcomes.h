/* The self-measured families' kinds of outcome, a file each here: its values'
 * names (part of every committed matrix: don't change one), its cell letters,
 * its row of the cell legend, its evidence, the pure decision that gives its
 * value and how a repetition becomes its verdict, all in its descriptor
 * (outcome.h, struct cts_outcome), which one CTS_KIND line of apis.def
 * registers, as it registers calls. */
#ifndef CTS_CORE_OUTCOMES_H
#define CTS_CORE_OUTCOMES_H

#include "../cts.h"
#include "../family_obs.h"
#include "../outcome.h"

#define CTS_OVERLAP_VALUES 5 /* enum cts_overlap's, NA included */

/* Each kind's descriptor, whole (apis.def's CTS_KIND lines list them). */
#define CTS_KIND(name) extern const struct cts_outcome cts_##name##_outcome;
#include "../apis.def"

#endif
