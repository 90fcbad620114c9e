# rtac — the two commands a newcomer needs: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_DIR := .run
DB_PORT ?= 3399
PORT ?= 8787
DEV_DB_URL := mysql+pymysql://root@127.0.0.1:$(DB_PORT)/rtac

.PHONY: install system-deps system-deps-wp run run-wp db-start stop test bench eval clean

$(BIN)/rtac: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	@touch $(BIN)/rtac

install: $(BIN)/rtac

# MariaDB from the distribution; installed only when missing.
system-deps:
	@bash scripts/system-deps mariadb

# WordPress, PHP, PHPUnit and Chromium for the plugin's tests and `make run-wp`.
system-deps-wp:
	@bash scripts/system-deps mariadb wordpress chromium

db-start: system-deps
	@mkdir -p $(RUN_DIR)
	@scripts/mariadb-local start $(RUN_DIR)/mariadb $(DB_PORT)
	@mariadb --no-defaults -h127.0.0.1 -P$(DB_PORT) -uroot -e 'CREATE DATABASE IF NOT EXISTS rtac CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci'
	@test -s $(RUN_DIR)/master.key || (umask 077; $(PYTHON) -c 'import base64,os;print(base64.b64encode(os.urandom(32)).decode())' > $(RUN_DIR)/master.key)

run: install db-start
	@export RTAC_DATABASE_URL='$(DEV_DB_URL)' RTAC_MASTER_KEY="$$(cat $(RUN_DIR)/master.key)"; \
	$(BIN)/rtac init-db && $(BIN)/python -m sidecar.demo demo && \
	echo && echo "Chat with the demo in another terminal:" && \
	echo "  export RTAC_DATABASE_URL='$(DEV_DB_URL)' RTAC_MASTER_KEY=\"\$$(cat $(RUN_DIR)/master.key)\"" && \
	echo "  $(BIN)/rtac chat --site demo --url http://127.0.0.1:$(PORT)   # Estonian; --lang en or --lang ru too" && \
	echo "Stop the database later with: make stop" && echo && \
	exec $(BIN)/rtac serve --host 127.0.0.1 --port $(PORT)

stop:
	@scripts/mariadb-local stop $(RUN_DIR)/mariadb

# A real WordPress with the plugin and demo content, the sidecar and MariaDB; prints the URL
# and the admin login, and stops WordPress and the sidecar on Ctrl-C (`make stop` stops MariaDB).
WP_PORT ?= 8080
run-wp: install system-deps-wp db-start
	@RTAC_DATABASE_URL='$(DEV_DB_URL)' RTAC_MASTER_KEY="$$(cat $(RUN_DIR)/master.key)" \
	  scripts/wp-run $(RUN_DIR) $(DB_PORT) $(PORT) $(WP_PORT)

test: install system-deps system-deps-wp
	$(BIN)/pytest -q

# The whole bench includes retrieval quality, whose BM25 baseline needs the evaluation extra.
bench: install system-deps
	@$(BIN)/python -c 'import bm25s, sklearn' 2>/dev/null || $(BIN)/pip install -q -e '.[eval]'
	$(BIN)/python -m bench.run

# Retrieval quality alone (bench/retrieval_eval.py): replaces the `## Retrieval quality` section of
# bench/RESULTS.md in place. The first run embeds every page and question (~15 minutes on 2 cores);
# later runs read the embeddings from .run/eval-cache/. `python -m bench.retrieval_eval --tune` prints
# the RetrievalSettings grid on the tune split.
eval: install system-deps
	@$(BIN)/python -c 'import bm25s, sklearn' 2>/dev/null || $(BIN)/pip install -q -e '.[eval]'
	$(BIN)/python -m bench.retrieval_eval

clean:
	rm -rf $(VENV) $(RUN_DIR) *.egg-info
