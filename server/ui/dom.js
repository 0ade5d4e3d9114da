// Builds the DOM from values: text always goes in as text nodes (never innerHTML), so a payload
// or a queue name that looks like markup shows as what it is.
export function h(tag, props, ...children) {
  return fill(document.createElement(tag), props, children);
}

export function svg(tag, props, ...children) {
  return fill(document.createElementNS('http://www.w3.org/2000/svg', tag), props, children);
}

function fill(el, props, children) {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'on') {
      for (const [event, fn] of Object.entries(value)) el.addEventListener(event, fn);
    } else if (key === 'class') {
      el.setAttribute('class', value);
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

// A button that is disabled when `why` (the reason, from access.js) is set; the reason shows
// beside it and is its accessible description, not only a tooltip.
let reasonIds = 0;
export function actionButton(label, why, onClick, props = {}) {
  const button = h('button', { type: 'button', ...props, on: { click: onClick } }, label);
  if (!why) return button;
  const id = `why-${++reasonIds}`;
  button.disabled = true;
  button.setAttribute('aria-describedby', id);
  button.title = why;
  return h('span', { class: 'action' }, button, h('span', { class: 'why', id }, why));
}

export function field(label, input) {
  return h('label', { class: 'field' }, h('span', null, label), input);
}

// Messages for the user: errors and outcomes, announced by the live region.
let flashTimer = 0;
let flashAt = 0;
export function flash(text, kind = 'ok') {
  flashAt = Date.now();
  const el = document.getElementById('flash');
  el.className = `flash ${kind}`;
  el.textContent = text;
  clearTimeout(flashTimer);
  if (kind === 'ok') flashTimer = setTimeout(() => { el.textContent = ''; el.className = 'flash'; }, 6000);
}

// On another page, an outcome of the one before is news no more; one set just now (an action
// that then moved to another page) stays.
export function clearStaleFlash() {
  if (Date.now() - flashAt < 500) return;
  const el = document.getElementById('flash');
  el.textContent = '';
  el.className = 'flash';
}

// Asks before a change that cannot be undone; resolves to true or false.
export function confirmDialog(question, confirmLabel) {
  return new Promise((resolve) => {
    const yes = h('button', { type: 'submit', value: 'yes', class: 'danger' }, confirmLabel);
    const no = h('button', { type: 'submit', value: 'no' }, 'Cancel');
    const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-q' },
      h('form', { method: 'dialog' }, h('p', { id: 'confirm-q' }, question), h('div', { class: 'buttons' }, no, yes)));
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'yes');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });
}
