/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Corpus replay: run a fuzz target over every file named on the command line
 * (directories are walked, files in name order) with no fuzzing engine, so
 * the corpus and every crash ever found stay regression tests in plain
 * `meson test`, with or without clang.
 */

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static unsigned int n_inputs;

static int
run_file(const char *path)
{
	static uint8_t buf[1 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	/* A private copy, sized exactly, so ASan sees reads past the input. */
	uint8_t *in = malloc(n ? n : 1);

	if (in == NULL)
		return -1;
	memcpy(in, buf, n);
	LLVMFuzzerTestOneInput(in, n);
	free(in);
	n_inputs++;
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
run_path(const char *path)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	DIR *d;
	int rc = 0;

	if (stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	d = opendir(path);
	if (d == NULL) {
		perror(path);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char **nn = realloc(names, (n + 1) * sizeof(*names));

		if (nn == NULL)
			break;
		names = nn;
		names[n] = malloc(strlen(path) + strlen(de->d_name) + 2);
		if (names[n] == NULL)
			break;
		sprintf(names[n], "%s/%s", path, de->d_name);
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0)
			rc = run_path(names[i]);
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i]) != 0)
			return 1;
	if (n_inputs == 0) {
		fprintf(stderr, "no corpus inputs found\n");
		return 1;
	}
	/* Reaching here means no oracle fired on any input. */
	printf("%s: %u passed, 0 failed\n", argv[0], n_inputs);
	return 0;
}
