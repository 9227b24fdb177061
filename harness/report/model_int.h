/* What model.c and model_render.c share: the report (JSON) rendered. */
#ifndef CTS_MODEL_INT_H
#define CTS_MODEL_INT_H

#include <jansson.h>
#include <stdio.h>

/* A member of a report object: its string ("" where absent), its integer. */
static inline const char *s_of(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}
static inline json_int_t n_of(const json_t *o, const char *k) { return json_integer_value(json_object_get(o, k)); }

void cts_model_render_text(const json_t *r, FILE *f);
void cts_model_render_md(const json_t *r, FILE *f);
void cts_model_render_html(const json_t *r, FILE *f);

#endif
