/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KBLOOM_VERSION_H
#define _KBLOOM_VERSION_H

#define KBLOOM_VERSION "0.1.0"

#endif
