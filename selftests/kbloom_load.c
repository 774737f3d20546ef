// SPDX-License-Identifier: GPL-2.0
/*
 * The module is loaded, live, and reports the version it was built with.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "kbloom_version.h"

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

TEST(module_is_live)
{
	char state[64];

	ASSERT_EQ(0, read_line("/sys/module/kbloom/initstate", state,
			       sizeof(state)));
	EXPECT_STREQ("live", state);
}

TEST(module_version_matches_build)
{
	char version[64];

	ASSERT_EQ(0, read_line("/sys/module/kbloom/version", version,
			       sizeof(version)));
	EXPECT_STREQ(KBLOOM_VERSION, version);
}

TEST_HARNESS_MAIN
