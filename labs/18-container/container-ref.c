// SPDX-License-Identifier: GPL-2.0
/*
 * container-ref - the reference answer of lab 18, built into the guest so
 * that the check can run it: solutions/18-container/container.c.
 */
#include "../../solutions/18-container/container.c"
