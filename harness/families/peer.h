/* The second process of the peer and process families (peer.c): this
 * program again, exporting an interprocess event and memory on command. */
#ifndef CTS_PEER_H
#define CTS_PEER_H

#include "cts.h"

/* peer.c: the exporting process, running only while a case that needs it
 * does: started or stopped as case c begins. */
void cts_peer_need(const struct cts_case *c, int device);
void cts_peer_stop(void);

#endif
