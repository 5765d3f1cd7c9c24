// SPDX-License-Identifier: GPL-2.0
/*
 * faultrun CMD [ARG...]: run CMD with the kernel's fault injection armed
 * for it (tests/faults.sh): its /proc/PID/make-it-fail is set once its
 * exec has completed and before it runs an instruction of its own, so
 * that failslab and fail_page_alloc (armed with task-filter) fail the
 * program's system calls but never the exec itself (which, failing,
 * would only say "Argument list too long" or kill the process). The
 * child stops at its exec under ptrace (PTRACE_TRACEME), is armed, and
 * is let go (PTRACE_DETACH). Its threads and children inherit the flag.
 *
 * Exit status: CMD's, or 128 + the signal that killed it; 125 when
 * faultrun itself failed.
 *
 * Copyright (C) 2026 The memfilter authors.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

static int arm(pid_t pid)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/proc/%d/make-it-fail", (int)pid);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, "1", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: faultrun CMD [ARG...]\n");
		return 125;
	}
	pid = fork();
	if (pid < 0) {
		perror("faultrun: fork");
		return 125;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
			perror("faultrun: PTRACE_TRACEME");
			_exit(125);
		}
		execvp(argv[1], argv + 1);
		fprintf(stderr, "faultrun: %s: %s\n", argv[1], strerror(errno));
		_exit(125);
	}
	/* The SIGTRAP of a successful exec, or the child's exit. */
	if (waitpid(pid, &status, 0) != pid) {
		perror("faultrun: waitpid");
		return 125;
	}
	if (WIFSTOPPED(status)) {
		if (arm(pid)) {
			perror("faultrun: make-it-fail");
			kill(pid, SIGKILL);
			return 125;
		}
		if (ptrace(PTRACE_DETACH, pid, NULL, NULL)) {
			perror("faultrun: PTRACE_DETACH");
			kill(pid, SIGKILL);
			return 125;
		}
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR) {
				perror("faultrun: waitpid");
				return 125;
			}
		}
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
