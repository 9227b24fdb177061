/* What fleet.c and fleet_render.c share: the report (JSON: groups, members,
 * outside, splits) rendered. */
#ifndef CTS_FLEET_INT_H
#define CTS_FLEET_INT_H

#include <jansson.h>
#include <stdio.h>

void cts_fleet_render_text(const json_t *r, FILE *out);
void cts_fleet_render_md(const json_t *r, FILE *out);
void cts_fleet_render_html(const json_t *r, FILE *out);

#endif
