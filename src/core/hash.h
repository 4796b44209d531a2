/*
 * hash.h - FNV-1a, 64 bits: the one hash of the project (region names,
 * pass schedules, GPU config images), defined in tally_shared.h, which the
 * runtime shares.  Chain calls to hash several pieces.
 */
#ifndef TALLY_CORE_HASH_H
#define TALLY_CORE_HASH_H

#include "tally_shared.h"

#endif /* TALLY_CORE_HASH_H */
