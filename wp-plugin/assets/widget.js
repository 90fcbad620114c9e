/*! rtac chat widget: dependency-free, no build step. Reads its configuration from the JSON
    block #rtac-config (data, never executed: no inline script, so a strict CSP holds); defines no globals. */
(() => {
  'use strict';
  const D = document, C = (() => {
    try {
      const e = D.getElementById('rtac-config');
      return (e ? JSON.parse(e.textContent) : window.rtacConfig) || {};
    } catch (e) { return {}; }
  })();
  // Captured now: currentScript is only set while this script first runs.
  const SRC = (D.currentScript || D.querySelector('script[src*="widget.js"]') || {}).src || '';
  const KEY = 'rtac:conversation';
  const EN = {
    open: 'Open chat', close: 'Close chat', send: 'Send', placeholder: 'Type your message…',
    typing: 'Typing…', unavailable: 'Limited mode: this answer comes straight from our saved information.',
    leadTitle: 'Leave your contact details', leadName: 'Name', leadEmail: 'Email', leadPhone: 'Phone',
    leadMessage: 'Message', leadConsent: 'I agree that my details are stored so that you can contact me.',
    leadSubmit: 'Send', leadThanks: 'Thank you! We will get back to you soon.', contactTitle: 'Contact us',
    book: 'Book a time', error: 'Sorry, something went wrong. Please try again.'
  };
  const T = k => (C.strings || {})[k] || EN[k];
  // Icons: [size, path, stroked]. Built as nodes, never parsed from markup, so Trusted Types policies hold too.
  const ICON = {
    open: [28, 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2h-9l-5 4v-4H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z'],
    close: [22, 'M6 6l12 12M18 6L6 18', 1],
    send: [22, 'M3.4 20.4l17.45-7.48a1 1 0 0 0 0-1.84L3.4 3.6a1 1 0 0 0-1.39.91L2 9.12c0 .5.37.93.87.99L17 12 2.87 13.88c-.5.07-.87.5-.87 1l.01 4.61c0 .71.73 1.2 1.39.91z']
  };
  const svg = (tag, attrs) => {
    const e = D.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  };
  const icon = ([s, d, line]) => {
    const i = svg('svg', { viewBox: '0 0 24 24', width: s, height: s, 'aria-hidden': 'true', focusable: 'false' });
    i.append(svg('path', line ? { d, stroke: 'currentColor', 'stroke-width': 2.2, 'stroke-linecap': 'round' } : { d, fill: 'currentColor' }));
    return i;
  };

  // h('tag', {attr: value, text: '...'}, ...children): null/false attributes and children are skipped.
  const h = (tag, attrs, ...kids) => {
    const e = D.createElement(tag);
    for (const k in attrs) {
      const v = attrs[k];
      if (k === 'text') e.textContent = v;
      else if (v != null && v !== false) e.setAttribute(k, v === true ? '' : v);
    }
    e.append(...kids.filter(Boolean));
    return e;
  };
  const btn = (act, label, attrs) => h('button', Object.assign({ type: 'button', 'data-rtac': act, 'aria-label': label }, attrs), icon(ICON[act]));
  const safe = u => {
    if (typeof u !== 'string' || !u.trim()) return null; // '' would resolve to this very page
    try { const x = new URL(u, location.href); return /^https?:$/.test(x.protocol) ? x : null; } catch (e) { return null; }
  };
  // Same-site links open in place (the conversation survives page loads); others in a new tab.
  const lnk = (u, text, attrs) => {
    const x = safe(u);
    if (!x) return null;
    const a = h('a', Object.assign({ href: x.href, text: text || x.hostname }, attrs));
    if (x.origin !== location.origin) { a.target = '_blank'; a.rel = 'noopener'; }
    return a;
  };

  // Colour: the configured one for launcher, header, own bubbles; text black or white, whichever contrasts more.
  const col = /^#([\da-f]{3}){1,2}$/i.test(C.color) ? C.color : '#2563eb';
  const hex = col.length === 4 ? col.replace(/[\da-f]/gi, '$&$&') : col;
  const lum = [1, 3, 5].reduce((s, i, n) => {
    const v = parseInt(hex.substr(i, 2), 16) / 255;
    return s + [0.2126, 0.7152, 0.0722][n] * (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  }, 0);
  const dark = 1.05 / (lum + 0.05) >= (lum + 0.05) / 0.05; // white text wins, so the colour reads on white too
  const lang = C.lang || (D.documentElement.lang || 'en').slice(0, 2);
  const rtl = /^(ar|he|fa|ur|ps|yi|dv|ku|sd|ug)\b/i.test(lang) || D.dir === 'rtl';
  const REST = (C.restUrl || '/wp-json/rtac/v1/').replace(/\/?$/, '/');
  let nonce = C.nonce || '';
  // Answers stream in where the browser can read a stream and the site has not found its host buffering them.
  const STREAM = C.stream !== false && !!(window.ReadableStream && window.TextDecoder);

  let st;
  try { st = JSON.parse(sessionStorage.getItem(KEY)); } catch (e) { /* storage blocked */ }
  if (!st || !Array.isArray(st.msgs)) st = { id: null, open: 0, lead: 0, msgs: [] };
  const save = () => {
    try {
      st.msgs = st.msgs.slice(-60);
      sessionStorage.setItem(KEY, JSON.stringify(st, (k, v) => (k === 'el' ? undefined : v)));
    } catch (e) { /* private mode or quota: the chat still works */ }
  };

  const init = () => {
    if (D.getElementById('rtac-widget')) return;
    const host = h('div', { id: 'rtac-widget' });
    const root = host.attachShadow({ mode: 'open' });
    const emit = (n, detail) => host.dispatchEvent(new CustomEvent('rtac:' + n, { detail, bubbles: true, cancelable: true }));

    const input = h('textarea', {
      id: 'rtac-i', 'data-rtac': 'input', dir: 'auto', rows: 1, maxlength: 4000, placeholder: T('placeholder'), enterkeyhint: 'send'
    });
    const log = h('div', { 'data-rtac': 'log', role: 'log', 'aria-live': 'polite', class: 'log', part: 'log' });
    const status = h('div', { role: 'status', class: 'sr' });
    const error = h('p', { role: 'alert', class: 'err', 'data-rtac': 'error' });
    const composer = h('form', { class: 'cmp', 'data-rtac': 'composer' },
      h('label', { for: 'rtac-i', class: 'sr', text: T('placeholder') }), input,
      btn('send', T('send'), { type: 'submit', class: 'send' }));
    const panel = h('div', {
      id: 'rtac-p', class: 'p', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'rtac-t',
      hidden: true, dir: rtl ? 'rtl' : 'ltr', lang, part: 'panel'
    },
    h('div', { class: 'hd', part: 'header' }, h('h2', { id: 'rtac-t', text: C.title || 'Chat' }), btn('close', T('close'), { class: 'x' })),
    log, status, error, composer);
    const launcher = btn('open', T('open'), { class: 'lc', 'aria-controls': 'rtac-p', 'aria-expanded': 'false', part: 'launcher' });
    const w = h('div', { class: 'w' + (/left/.test(C.position) ? ' l' : '') }, panel, launcher);
    // Through the CSSOM, not a style attribute: a CSP without 'unsafe-inline' styles allows this.
    [['--c', col], ['--f', dark ? '#fff' : '#000'], ['--a', dark ? col : '#0b57d0']].forEach(([k, v]) => w.style.setProperty(k, v));

    // Styles live in the shadow root. Hidden until they load (or fail: then it works unstyled).
    const css = C.cssUrl || SRC.replace(/\.js(?=[?#]|$)/, '.css');
    if (css && css !== SRC) {
      host.style.setProperty('display', 'none', 'important');
      const show = () => { host.style.removeProperty('display'); log.scrollTop = log.scrollHeight; };
      const link = h('link', { rel: 'stylesheet', href: css });
      link.onload = show;
      link.onerror = () => { show(); root.prepend(h('style', { text: '.sr{position:absolute;clip:rect(0 0 0 0)}.m{white-space:pre-wrap}[hidden]{display:none}' })); };
      setTimeout(show, 4000);
      root.append(link);
    }
    root.append(w);

    let busy = 0, qr = null;
    // Scroll to the end, but never past the first line of `el` (a long reply is read from its start).
    const bottom = el => {
      log.scrollTop = log.scrollHeight;
      const d = el ? el.getBoundingClientRect().top - log.getBoundingClientRect().top - 12 : 0;
      if (d < 0) log.scrollTop += d;
    };
    const grow = () => { input.style.height = 'auto'; input.style.height = Math.min(input.scrollHeight + 2, 140) + 'px'; };

    const card = c => {
      c = c || {};
      const tel = String(c.phone || '').replace(/[^\d+]/g, ''), em = String(c.email || '').trim();
      const ok = /^[^\s@?&]+@[^\s@?&]+$/.test(em);
      if (!tel && !ok && !c.address) return null;
      return h('address', { 'data-rtac': 'contact-card', class: 'card' },
        h('strong', { text: T('contactTitle') }),
        tel && h('a', { href: 'tel:' + tel, text: c.phone }),
        ok && h('a', { href: 'mailto:' + em, text: em }),
        c.address && h('span', { text: c.address }));
    };

    const field = (name, label, type, attrs) => h('label', { class: 'f' }, h('span', { text: T(label) }),
      h(type ? 'input' : 'textarea', Object.assign({ name, type }, attrs)));
    const leadForm = () => h('form', { 'data-rtac': 'lead-form', class: 'lead', 'aria-labelledby': 'rtac-lt' },
      h('h3', { id: 'rtac-lt', text: T('leadTitle') }),
      field('name', 'leadName', 'text', { required: true, autocomplete: 'name', maxlength: 200 }),
      field('email', 'leadEmail', 'email', { required: true, autocomplete: 'email', maxlength: 200 }),
      field('phone', 'leadPhone', 'tel', { autocomplete: 'tel', maxlength: 50 }),
      field('message', 'leadMessage', null, { rows: 2, maxlength: 2000 }),
      // A field people never see or reach: only a script fills it in (the server then stores nothing).
      h('label', { class: 'sr', 'aria-hidden': 'true' }, 'Website', h('input', { name: 'website', tabindex: -1, autocomplete: 'off' })),
      h('label', { class: 'ck' }, h('input', { type: 'checkbox', name: 'consent', required: true }), h('span', { text: T('leadConsent') })),
      h('p', { role: 'alert', class: 'err' }),
      h('button', { type: 'submit', class: 'btn', 'data-rtac': 'lead-submit', text: T('leadSubmit') }));

    // One transcript entry -> its element. Entries: customer, agent, lead (pending form), note.
    const render = m => {
      if (m.r === 'lead') return leadForm();
      if (m.r === 'note') return h('p', { class: 'note', 'data-rtac': 'notice', dir: 'auto', text: m.t });
      const a = m.r === 'agent', b = h('div', { 'data-rtac': 'message', 'data-role': a ? 'agent' : 'customer', class: 'm', dir: 'auto' });
      if (a) {
        // Text only: plain http(s) URLs become links built node by node, nothing is parsed as HTML.
        String(m.t).split(/(https?:\/\/[^\s<>"]*[^\s<>".,;:!?'")\]])/).forEach((p, i) => b.append((i % 2 && lnk(p, p)) || p));
      } else b.textContent = m.t;
      return h('div', { class: 't ' + (a ? 'a' : 'c') }, b,
        a && m.d && h('p', { class: 'dg', text: T('unavailable') }),
        a && m.b && lnk(m.b, T('book'), { 'data-rtac': 'book', class: 'btn', target: '_blank', rel: 'noopener' }),
        a && m.k && card(m.c),
        a && m.s && m.s.length && h('ul', { class: 'src' }, ...m.s.map(s => h('li', {}, lnk(s.url, s.title)))));
    };
    const push = m => { st.msgs.push(m); log.append(m.el = render(m)); return m; };
    const drop = m => { st.msgs = st.msgs.filter(x => x !== m); m.el && m.el.remove(); };
    const quick = q => {
      if (qr) qr.remove();
      q = (Array.isArray(q) ? q : []).filter(t => typeof t === 'string' && t.trim()).slice(0, 5);
      qr = q.length ? h('div', { class: 'qr' }, ...q.map(t => h('button', { type: 'button', 'data-rtac': 'quick-reply', text: t }))) : null;
      if (qr) log.append(qr);
    };

    // Server-Sent Events: each `delta` text goes to `on` as it arrives; `done` is the whole answer.
    const events = async (rd, on) => {
      const dec = new TextDecoder();
      let buf = '';
      for (;;) {
        const { value, done } = await rd.read();
        buf += dec.decode(value, { stream: !done }).replace(/\r/g, '');
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          let ev = '', d = [];
          buf.slice(0, i).split('\n').forEach(l => {
            const [, k, v] = /^([^:]*):? ?(.*)$/.exec(l);
            if (k === 'event') ev = v;
            else if (k === 'data') d.push(v);
          });
          buf = buf.slice(i + 2);
          try { d = JSON.parse(d.join('\n')); } catch (e) { continue; } // comments, keep-alives
          if (ev === 'delta' && typeof d.text === 'string') on(d.text);
          else if (ev === 'done') { rd.cancel().catch(() => {}); return d; }
        }
        if (done) throw { s: 0 };
      }
    };
    // With `on`, asks for a stream; whatever is not one (buffering proxies, errors) is read as JSON.
    const api = async (path, body, on) => {
      const r = await fetch(REST + path, {
        method: 'POST', credentials: 'same-origin', body: JSON.stringify(body),
        headers: Object.assign({ 'Content-Type': 'application/json' }, on ? { Accept: 'text/event-stream' } : {}, nonce ? { 'X-WP-Nonce': nonce } : {}),
        signal: AbortSignal.timeout ? AbortSignal.timeout(60000) : undefined
      });
      if (on && r.ok && r.body && /^text\/event-stream/i.test(r.headers.get('Content-Type'))) return events(r.body.getReader(), on);
      const j = await r.json().catch(() => null);
      // A stale nonce (cached page): retry once as an anonymous visitor.
      if (r.status === 403 && nonce && /nonce/.test(j && j.code)) { nonce = ''; return api(path, body, on); }
      if (!r.ok || !j || typeof j !== 'object') throw { s: r.status, j };
      return j;
    };
    const oops = e => (e && e.s === 429 && e.j && typeof e.j.message === 'string' && e.j.message) || T('error');

    const reply = j => {
      const a = j.action, m = { r: 'agent', t: j.reply, d: !!j.degraded };
      const seen = new Set();
      m.s = (Array.isArray(j.sources) ? j.sources : []).filter(s => {
        const x = s && safe(s.url);
        return x && !seen.has(x.href) && seen.add(x.href);
      }).slice(0, 3).map(s => ({ title: String(s.title || ''), url: s.url }));
      if (a === 'offer_booking') m.b = (safe(j.booking_url || C.bookingUrl) || {}).href;
      if (a === 'show_contact' || (a === 'offer_booking' && !m.b)) { m.k = 1; m.c = j.contact || C.contact; }
      m.q = j.quick_replies;
      push(m);
      if (a === 'offer_lead' && !st.lead) {
        st.msgs.filter(x => x.r === 'lead').forEach(drop);
        push({ r: 'lead' });
      }
      quick(m.q);
      return m.el;
    };

    const send = async text => {
      text = String(text || '').trim();
      if (!text || busy) return;
      busy = 1;
      error.textContent = '';
      quick();
      const m = push({ r: 'customer', t: text });
      input.value = '';
      grow();
      const dots = h('div', { class: 't a typ', 'aria-hidden': 'true' }, h('div', { class: 'm' }, h('i'), h('i'), h('i')));
      log.append(dots);
      log.setAttribute('aria-busy', 'true');
      status.textContent = T('typing');
      bottom();
      let j, fail, shown, live;
      // Streamed text goes into a bubble screen readers skip: the finished reply replaces it and is announced once.
      const piece = t => {
        if (!live) {
          dots.remove();
          log.append(live = h('div', { class: 't a', 'aria-hidden': 'true' }, h('div', { 'data-rtac': 'message', 'data-role': 'agent', class: 'm', dir: 'auto' })));
        }
        live.firstChild.append(t);
        bottom(live);
      };
      try {
        // The page's address without its query string and fragment: they may carry what the visitor typed elsewhere.
        j = await api('chat', { message: text, conversation_id: st.id || undefined, lang, page: { url: location.origin + location.pathname, title: D.title } }, STREAM && piece);
        if (typeof j.reply !== 'string') throw { s: 0, j };
      } catch (e) { fail = e || {}; }
      dots.remove();
      if (live) live.remove();
      log.removeAttribute('aria-busy');
      status.textContent = '';
      if (fail) {
        drop(m); // keep what they typed: back into the input
        if (!input.value) { input.value = text; grow(); }
        error.textContent = oops(fail);
      } else {
        st.id = j.conversation_id || st.id;
        if (emit('message', j)) shown = reply(j);
      }
      save();
      busy = 0;
      bottom(shown);
    };

    const lead = async f => {
      const d = new FormData(f), b = f.querySelector('[type=submit]'), e = f.querySelector('.err');
      const v = k => String(d.get(k) || '').trim();
      b.disabled = true;
      e.textContent = '';
      try {
        const j = await api('lead', { name: v('name'), email: v('email'), phone: v('phone'), message: v('message'), consent: true, conversation_id: st.id, website: v('website') });
        if (j.ok === false) throw { j };
        st.lead = 1;
        const m = st.msgs.find(x => x.el === f) || {};
        m.r = 'note';
        m.t = T('leadThanks');
        f.replaceWith(m.el = render(m));
        save();
        input.focus();
      } catch (x) {
        e.textContent = oops(x);
        b.disabled = false;
      }
    };

    const open = (focus, quiet) => {
      if (panel.hidden) {
        if (!quiet && !emit('open')) return;
        panel.hidden = false;
        w.classList.add('o');
        launcher.setAttribute('aria-expanded', 'true');
        st.open = 1;
        save();
        bottom();
      }
      if (focus) input.focus();
    };
    const close = () => {
      if (panel.hidden || !emit('close')) return;
      panel.hidden = true;
      w.classList.remove('o');
      launcher.setAttribute('aria-expanded', 'false');
      st.open = 0;
      save();
      launcher.focus();
    };

    // One delegated listener per event type, driven by data-rtac.
    root.addEventListener('click', e => {
      const t = e.target.closest('[data-rtac]'), a = t && t.dataset.rtac;
      if (a === 'open') open(1);
      else if (a === 'close') close();
      else if (a === 'quick-reply') send(t.textContent);
    });
    root.addEventListener('submit', e => {
      e.preventDefault();
      if (e.target === composer) send(input.value);
      else if (e.target.dataset.rtac === 'lead-form') lead(e.target);
    });
    root.addEventListener('keydown', e => {
      if (e.key === 'Escape' && !panel.hidden) { e.stopPropagation(); close(); }
      else if (e.key === 'Enter' && e.target === input && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(input.value); }
    });
    root.addEventListener('input', e => {
      const t = e.target;
      if (t === input) grow();
      else if (t.name === 'phone') t.form.elements.email.required = !t.value.trim(); // email or phone
    });
    // Themes can open the chat from their own markup: <a href="#rtac"> or any [data-rtac-open].
    D.addEventListener('click', e => {
      if (e.target.closest && e.target.closest('[data-rtac-open],a[href="#rtac"]')) { e.preventDefault(); open(1); }
    });

    // Restore this tab's conversation before the live region is in the page (no re-announcement).
    const greet = C.greeting == null ? 'Hi! How can I help you today?' : C.greeting;
    const g = greet ? [h('div', { class: 't a' }, h('div', { class: 'm', 'data-rtac': 'greeting', dir: 'auto', text: greet }))] : [];
    log.append(...g);
    try {
      st.msgs.forEach(m => log.append(m.el = render(m)));
      const last = st.msgs.filter(m => m.r !== 'lead').pop();
      if (last && last.r === 'agent') quick(last.q);
    } catch (e) {
      st = { id: null, open: 0, lead: 0, msgs: [] };
      log.replaceChildren(...g);
    }
    D.body.append(host);
    if (st.open) open(0, 1);
  };

  if (D.body) init();
  else D.addEventListener('DOMContentLoaded', init);
})();
