// SPDX-License-Identifier: GPL-2.0
/*
 * container-ref - the reference answer of lab 16, built into the guest so
 * that the check can run it: solutions/16-container/container.c.
 */
#include "../../solutions/16-container/container.c"
