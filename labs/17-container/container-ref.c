// SPDX-License-Identifier: GPL-2.0
/*
 * container-ref - the reference answer of lab 17, built into the guest so
 * that the check can run it: solutions/17-container/container.c.
 */
#include "../../solutions/17-container/container.c"
