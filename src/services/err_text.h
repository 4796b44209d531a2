/*
 * err_text.h - the fixed English text of a PAPI error code.
 */
#ifndef TALLY_SERVICES_ERR_TEXT_H
#define TALLY_SERVICES_ERR_TEXT_H

/* Fixed English text of a PAPI_E* code, NULL when the code is unknown. */
const char *tly_err_text(int code);

#endif /* TALLY_SERVICES_ERR_TEXT_H */
