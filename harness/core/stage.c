/* A case's stage, reported by the worker (cts.h, cts_case_stage). */
#include "cts.h"

void (*cts_case_stage_sink)(const char *stage);

void cts_case_stage(const char *stage)
{
    if (cts_case_stage_sink)
        cts_case_stage_sink(stage);
}
