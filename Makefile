# userns-labs: rebuild the Linux 3.8 user-namespace work, one patch at a time.
# Thin front door: every target runs a script under scripts/. 'make help'.

SHELL := /bin/bash
S := scripts
# As root, missing Debian packages are installed; otherwise their apt line is shown.
DEPS = $(S)/deps.sh

.PHONY: help deps tree build guest check boot status test test-quick lint bench clean

help: ## this list
	@echo "userns-labs: make TARGET"
	@grep -hE '^[a-z%-]+:.*## ' $(MAKEFILE_LIST) | sed -e 's/:.*## /\t/' -e 's/%/N/' | \
		awk -F'\t' '{ printf "  make %-14s %s\n", $$1, $$2 }'

deps: ## install the Debian packages the course needs (as root)
	@$(DEPS)

tree: deps ## import Debian's kernel source into build/linux and make the lab tags
	@$(S)/import-kernel.sh && $(S)/apply-steps.sh

lab-%: deps ## go to lab N (your branch student/lab-NN, work kept) and check it
	@$(S)/lab.sh start $*

solution-%: deps ## switch to the reference answer of lab N (branch solution/lab-NN) and check it
	@$(S)/lab.sh solution $*

check: ## build, boot in QEMU, run this lab's check and every earlier one
	@$(S)/lab.sh check $(LAB)

boot: ## an interactive shell in the guest (root; 'su student' for uid 1000)
	@$(S)/lab.sh boot

status: ## which lab and branch the kernel tree is on, and what is not committed
	@$(S)/lab.sh status

build: ## build the kernel in build/linux (out of tree, ccache)
	@$(S)/build-kernel.sh

guest: ## pack the guest initramfs (busybox, demos, checks)
	@$(S)/build-guest.sh

test: ## the project's own tests: unit, lint, staircase, identity (CI runs this)
	@$(S)/deps.sh --test
	@tests/run.sh

test-quick: ## the tests that need no kernel build (unit and lint)
	@tests/run.sh --quick

lint: ## shellcheck the scripts, checkpatch the patches and demos
	@tests/lint.sh

bench: ## time the cold build, the edit-rebuild-boot-check loop, a boot, the staircase
	@$(S)/bench.sh

clean: ## remove build outputs (never build/linux, which holds your work)
	rm -rf build/obj build/guest build/logs build/test
