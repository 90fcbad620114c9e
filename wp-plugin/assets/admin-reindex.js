/* rtac: the Re-index page's progress bar. Posts one batch at a time to
 * /wp-json/rtac/v1/reindex until the server says done. No dependencies. */
(function () {
	'use strict';
	var cfg = window.rtacReindex;
	var button = document.getElementById('rtac-reindex-start');
	var bar = document.getElementById('rtac-reindex-progress');
	var status = document.getElementById('rtac-reindex-status');
	if (!cfg || !button || !bar || !status) {
		return;
	}
	// Kept across clicks: a failed batch keeps its place and "Try again" resumes there.
	var state = { offset: 0, sent: 0 };

	function format(template) {
		var args = Array.prototype.slice.call(arguments, 1);
		return template.replace(/%(\d+)\$d|%d/g, function (m, n) {
			return String(n ? args[n - 1] : args[0]);
		});
	}

	function batch() {
		return fetch(cfg.url, {
			method: 'POST',
			credentials: 'same-origin',
			headers: { 'Content-Type': 'application/json', 'X-WP-Nonce': cfg.nonce },
			body: JSON.stringify({ offset: state.offset, batch: cfg.batch })
		}).then(function (res) {
			return res.json().then(function (data) {
				if (!res.ok) {
					throw new Error((data && data.message) || res.statusText);
				}
				return data;
			});
		}).then(function (data) {
			state.sent += data.sent;
			state.offset = data.next_offset;
			bar.max = Math.max(1, data.total);
			bar.value = Math.min(data.next_offset, data.total);
			if (data.done) {
				bar.value = bar.max;
				status.textContent = format(cfg.strings.done, state.sent);
				state = { offset: 0, sent: 0 };
				return;
			}
			status.textContent = format(cfg.strings.progress, data.next_offset, data.total);
			return batch();
		});
	}

	var label = button.textContent;

	button.addEventListener('click', function () {
		button.disabled = true;
		button.textContent = label;
		bar.hidden = false;
		status.textContent = format(cfg.strings.progress, state.offset, Number(button.dataset.total) || 0);
		batch().then(function () {
			button.disabled = false;
		}, function (err) {
			status.textContent = cfg.strings.failed + ' ' + err.message;
			button.textContent = cfg.strings.retry;
			button.disabled = false;
		});
	});
}());
