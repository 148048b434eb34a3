// What the browser backend runs in the page (Runtime.evaluate) and the keys `press` knows:
// data, shared by the actions (page_actions.cpp) and the attempt (attempt.cpp).
#pragma once

#include <cstddef>
#include <string>

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

namespace agentry::browser::page_scripts {

inline constexpr std::size_t kMaxText = 20000;
inline constexpr std::size_t kMaxElements = 200;

// Finds the element of a step ({"selector"} or {"ref"}), scrolls it into view and answers
// its centre, or {"error"}.
inline constexpr const char* kLocate = R"JS((function(a){
  const el = a.ref ? document.querySelector('[data-agentry-ref="' + CSS.escape(a.ref) + '"]')
                   : document.querySelector(a.selector);
  if (!el) return {error: a.ref ? 'no element has ref "' + a.ref + '" (refs come from the last read of this page)'
                                : 'no element matches selector "' + a.selector + '"'};
  el.scrollIntoView({block: 'center', inline: 'center'});
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return {error: 'the element is not visible'};
  const text = (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().replace(/\s+/g, ' ').slice(0, 80);
  return {x: r.left + r.width / 2, y: r.top + r.height / 2, tag: el.tagName.toLowerCase(), text: text};
}))JS";

inline constexpr const char* kRead = R"JS((function(maxText, maxEls){
  const d = document, root = d.documentElement;
  let next = parseInt(root.getAttribute('data-agentry-next-ref') || '1', 10);
  const visible = el => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
  const els = [];
  for (const el of d.querySelectorAll('a[href],button,input,textarea,select,[role=button],[role=link],summary')) {
    if (els.length >= maxEls) break;
    if (el.type === 'hidden' || !visible(el)) continue;
    let ref = el.getAttribute('data-agentry-ref');
    if (!ref) { ref = 'e' + (next++); el.setAttribute('data-agentry-ref', ref); }
    const tag = el.tagName.toLowerCase(), role = el.getAttribute('role');
    const kind = tag === 'a' || role === 'link' ? 'link'
      : (tag === 'button' || role === 'button' || tag === 'summary' ||
         (tag === 'input' && ['submit', 'button', 'reset', 'image'].includes(el.type))) ? 'button' : 'input';
    const e = {ref: ref, kind: kind, tag: tag};
    const text = (tag === 'input' || tag === 'textarea' || tag === 'select' ? (kind === 'button' ? el.value : '')
                  : (el.innerText || el.getAttribute('aria-label') || el.title || '')).trim().replace(/\s+/g, ' ').slice(0, 100);
    if (text) e.text = text;
    if (tag === 'a') e.href = el.href;
    if (kind === 'input') {
      e.type = el.type || tag;
      if (el.name) e.name = el.name;
      if (el.placeholder) e.placeholder = el.placeholder;
      if (el.type !== 'password' && el.value) e.value = String(el.value).slice(0, 100);
    }
    els.push(e);
  }
  root.setAttribute('data-agentry-next-ref', String(next));
  let text = (d.body ? d.body.innerText : '') || '';
  const truncated = text.length > maxText;
  return {title: d.title, url: location.href, text: text.slice(0, maxText), truncated: truncated, elements: els};
}))JS";

inline constexpr const char* kWaitFor = R"JS((function(a){
  if (a.text !== undefined) return !!(document.body && document.body.innerText.includes(a.text));
  const el = document.querySelector(a.selector);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}))JS";

// windowsVirtualKeyCode and code of the named keys `press` knows.
struct Key {
  const char* name;
  int code;
  const char* dom_code;
  const char* text;
};
inline constexpr Key kKeys[] = {{"Enter", 13, "Enter", "\r"},      {"Tab", 9, "Tab", nullptr},
                         {"Escape", 27, "Escape", nullptr}, {"Backspace", 8, "Backspace", nullptr},
                         {"Delete", 46, "Delete", nullptr}, {"ArrowUp", 38, "ArrowUp", nullptr},
                         {"ArrowDown", 40, "ArrowDown", nullptr}, {"ArrowLeft", 37, "ArrowLeft", nullptr},
                         {"ArrowRight", 39, "ArrowRight", nullptr}, {"PageUp", 33, "PageUp", nullptr},
                         {"PageDown", 34, "PageDown", nullptr}, {"Home", 36, "Home", nullptr},
                         {"End", 35, "End", nullptr},       {"Space", 32, "Space", " "}};

// `fn`(`arg`): one of the functions above called with a JSON argument.
inline std::string call_js(const char* fn, const boost::json::value& arg) {
  return std::string(fn) + "(" + boost::json::serialize(arg) + ")";
}

}  // namespace agentry::browser::page_scripts
