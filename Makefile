# SPDX-License-Identifier: GPL-2.0
# userns-labs: rebuild the Linux 3.8 user-namespace work, one patch at a time.
# Thin front door: every target runs a script under scripts/. 'make help'.

SHELL := /bin/bash
S := scripts
# As root, missing Debian packages are installed; otherwise their apt line is shown.
# Variables given on the command line (SUB, DIR, LAB, TAG) reach the scripts
# through the environment ("$${SUB-}"), never pasted into a recipe's text, and
# their text is taken as it is ($(value ...)): make does not expand a
# '$(shell ...)' in a file name either. A file name is data, not code.
override SUB := $(value SUB)
override DIR := $(value DIR)
override LAB := $(value LAB)
override TAG := $(value TAG)
override SLUG := $(value SLUG)
override POINT := $(value POINT)
# KERNEL=6.1: the course on Debian 12's own kernel (default: 6.12, Debian
# stable's, on Debian 12 too; make lab-N KERNEL=... remembers it). Checked
# by scripts/lib.sh.
override KERNEL := $(value KERNEL)
export SUB DIR LAB TAG SLUG POINT
ifneq ($(KERNEL),)
export KERNEL
endif
DEPS = $(S)/deps.sh

.PHONY: help deps tree build guest check boot status hint gdb gdb-attach record replay test-gdb test-slurm test-workflows test test-fresh test-gradescope gradescope test-quick lint bench course-map stack export-stack new-lab help-settings port range-diff clean grade grade-all book book-pdf book-captures conformance mutate

help: ## this list
	@echo "userns-labs: make TARGET"
	@grep -hE '^[a-z%-]+:.*## ' $(MAKEFILE_LIST) | sed -e 's/:.*## /\t/' -e 's/%/N/' | \
		awk -F'\t' '{ printf "  make %-14s %s\n", $$1, $$2 }'
	@echo "The kernel base is 6.12 (Debian stable's kernel, build/linux). Any of them with KERNEL=6.1: on Debian 12's own 6.1 (build/6.1/; make lab-N KERNEL=... is remembered)"

deps: ## install the Debian packages the course needs (as root)
	@$(DEPS)

tree: deps ## import Debian's kernel source into build/linux and make the lab tags
	@$(S)/import-kernel.sh && $(S)/apply-steps.sh

lab-%: deps ## go to lab N (your branch student/lab-NN, work kept) and check it
	@$(S)/lab.sh start $*

solution-%: deps ## switch to the reference answer of lab N (branch solution/lab-NN) and check it
	@$(S)/lab.sh solution $*

check: ## build, boot in QEMU, run this lab's check and every earlier one (LAB=N: lab N and those before it; ONLY=1: that lab's alone)
	@$(S)/lab.sh check "$${LAB-}"

boot: ## an interactive shell in the guest (root; 'su student' for uid 1000)
	@$(S)/lab.sh boot

status: ## every lab: your commits, its last check, hints used; where the tree is, what is not committed
	@$(S)/lab.sh status

hint: ## the next hint for the lab the tree is on (one more each time; LAB=N for another lab)
	@$(S)/lab.sh hint "$${LAB-}"

gdb: ## the kernel under gdb, the guest and gdb side by side: the lab's files with debug info, in seconds (FULL=1: every file, minutes)
	@$(S)/deps.sh --gdb
	@$(S)/gdb.sh

gdb-attach: ## gdb on the debug kernel, attached to a guest that 'make gdb' booted
	@$(S)/gdb.sh attach

record: ## record this lab's check once in QEMU, deterministically, for make replay (POINT=name or number: the point to replay; default the first that failed)
	@$(S)/deps.sh --gdb
	@$(S)/replay.sh record

replay: ## gdb on the recording, stopped where the point's failed system call returns; reverse-step, reverse-next, reverse-continue go back
	@$(S)/deps.sh --gdb
	@$(S)/replay.sh replay

build: ## build the kernel in build/linux (out of tree, ccache)
	@$(S)/build-kernel.sh

guest: ## pack the guest initramfs (busybox, demos, checks)
	@$(S)/build-guest.sh

test: ## the project's own tests: unit, lint, staircase, identity (CI runs this)
	@$(S)/deps.sh --test
	@tests/run.sh

test-fresh: ## make lab-1, make test and the GitHub templates on a brand-new minimal Debian (SUITE=trixie, the default, or bookworm; debootstrap; root; ~75 min)
	@$(S)/test-fresh.sh

test-gradescope: ## the Gradescope autograder on a brand-new minimal Debian laid out as Gradescope's image: setup.sh, then three submissions (SUITE=trixie or bookworm; root)
	@FRESH_ONLY=gradescope $(S)/test-fresh.sh

test-workflows: ## run ci/github's templates here as a GitHub runner would (root; after make lab-1)
	@$(DEPS)
	@tests/workflows.sh

test-gdb: ## make gdb's test with FULL=1 (make test runs it without): every file with debug info (~15 min cold)
	@$(S)/deps.sh --gdb
	@FULL=1 tests/gdb.sh

test-slurm: ## grade-all ENGINE=slurm on a real single-node Slurm started here (a class of 30; equals the local run)
	@$(S)/deps.sh --slurm
	@tests/slurm.sh

test-quick: ## the tests that need no kernel build (unit, lint, the book)
	@$(S)/deps.sh --quick
	@tests/run.sh --quick

lint: ## shellcheck the scripts, checkpatch the patches and demos
	@$(S)/deps.sh --lint
	@tests/lint.sh

bench: deps ## time the cold build, the edit-rebuild-boot-check loop, a boot, the staircase, a class, make test cold
	@$(S)/bench.sh

grade: deps ## grade a submission: SUB=<patch|mbox|dir|bundle|repo[#branch]> [LAB=N]
	@$(S)/grade.sh "$${SUB-}" "$${LAB-}"

grade-all: deps ## grade a class: DIR=<one submission per sub-directory> LAB=N [JOBS=k at once] [ENGINE=slurm] (resumable)
	@GRADE_JOBS="$${JOBS-}" JOBS= GRADE_ENGINE="$${ENGINE-}" $(S)/grade.sh --all "$${DIR-}" "$${LAB-}"

gradescope: ## the Gradescope autograder of a lab: LAB=N (build/gradescope/lab-NN-autograder.zip; upload it as the assignment's autograder)
	@case "$${LAB-}" in ''|*[!0-9]*) echo "usage: make gradescope LAB=N" >&2; exit 2 ;; esac; \
	mkdir -p build/gradescope && python3 $(S)/gradescope.py zip "$$LAB" "build/gradescope/lab-$$(printf %02d "$$LAB")-autograder.zip"

install modules_install insmod: ## refused: nothing built here is ever loaded into this machine's kernel
	@echo "error: 'make $@' is refused: userns-labs kernels run only inside QEMU (make check, make boot)" >&2; exit 1

conformance: ## the kernel's own namespace selftests (nsfs, pidfd, ...) in the guest at the final step; TAG=lab-00 for another
	@$(S)/deps.sh --conf
	@$(S)/import-kernel.sh && $(S)/apply-steps.sh && $(S)/conformance.sh $${TAG:+--tag "$$TAG"}

book: ## render the book: build/book/index.html and build/book/userns-labs.epub
	@$(S)/deps.sh --book
	@$(S)/book.sh

book-pdf: ## the book as PDF (weasyprint): A4, or PAPER=letter
	@$(S)/deps.sh --pdf
	@$(S)/book.sh --pdf --paper "$${PAPER:-a4}"

book-captures: deps ## run each lab's demo in the guest at its start and end, for the book
	@$(S)/book-captures.sh

mutate: deps ## mutants made by rule from lab LAB's answer, built and booted with its check: tests/mutate/NN.report (LAB=N; GEN_ONLY=1: the patches only)
	@$(S)/mutate.sh $(if $(GEN_ONLY),--generate-only) "$${LAB-}"

stack: ## maintainers: the course's patches as commits on a branch of build/linux (BRANCH=stack), to change with git
	@$(S)/stack.sh make "$${BRANCH-}"

export-stack: ## maintainers: write kernel-steps/ and solutions/ back from that branch (then make tree, make test)
	@$(S)/stack.sh export "$${BRANCH-}"

new-lab: ## maintainers: a new lab's files to fill in, labs/NN-SLUG/ (LAB=NN SLUG=name; a number in the middle moves the later labs up)
	@$(S)/new-lab.sh "$${LAB-}" "$${SLUG-}"

help-settings: ## every setting the scripts read (environment or make's command line): its default and what it does
	@python3 $(S)/settings.py list

port: ## maintainers: carry a change (git commit --fixup on BRANCH, default stack) to the other base's stack, fold it in on both, export both
	@$(S)/stack.sh port "$${BRANCH-}"

range-diff: ## maintainers: the two bases' lab tags compared with git range-diff, step by step (SUMMARY=1: the table only)
	@$(S)/stack.sh range-diff $${SUMMARY:+--summary}

course-map: ## regenerate labs/README.md from every lab.conf
	@$(S)/course-map.sh > labs/README.md

clean: ## remove build outputs (never build/linux, which holds your work)
	rm -rf build/obj build/obj-gdb build/guest build/logs build/test build/test-stack build/gdbtest build/book build/grade build/conformance
	rm -rf build/6.1/obj build/6.1/obj-gdb build/6.1/guest build/6.1/logs build/6.1/test build/6.1/test-stack build/6.1/gdbtest build/6.1/book build/6.1/grade build/6.1/conformance
	git -C build/linux worktree prune 2>/dev/null || true
	git -C build/6.1/linux worktree prune 2>/dev/null || true
