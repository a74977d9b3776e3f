// clawd relay: the service worker. It keeps one websocket to the clawd relay on 127.0.0.1, proves
// the token in its first message, and drives only the tabs the user shared with a click on the
// toolbar button (chrome.debugger). Commands come in, replies and events go out.
'use strict';

const PROTOCOL_VERSION = '1.3';
const DEFAULT_PORT = 18792;
const PING_MS = 20000; // socket traffic keeps the worker alive (Chrome 116+)
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 10000;

const shared = new Map(); // tabId -> {tabId, targetId, url, title}
let socket = null;
let ready = false; // the relay accepted our hello
let backoff = BACKOFF_MIN_MS;
let retryTimer = null;
let pingTimer = null;
let lastError = '';

// -- settings -------------------------------------------------------------------------------
async function settings() {
  const stored = await chrome.storage.local.get({port: DEFAULT_PORT, token: ''});
  return {port: Number(stored.port) || DEFAULT_PORT, token: String(stored.token || '')};
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && (changes.port || changes.token)) {
    backoff = BACKOFF_MIN_MS;
    reconnect();
  }
});

// -- the websocket to clawd -----------------------------------------------------------------
async function connect() {
  clearTimeout(retryTimer);
  retryTimer = null;
  if (socket) return;
  const {port, token} = await settings();
  if (socket) return; // another connect() got there while we read the settings
  if (!token) {
    lastError = 'not paired: set the token in the options page';
    updateTitle();
    return; // nothing to prove: wait for the options page to store a token
  }
  let ws;
  try {
    ws = new WebSocket(`ws://127.0.0.1:${port}/extension`);
  } catch (err) {
    scheduleReconnect(String(err));
    return;
  }
  socket = ws;
  ws.onopen = () => {
    ws.send(JSON.stringify({
      type: 'hello',
      token,
      version: chrome.runtime.getManifest().version,
      userAgent: navigator.userAgent,
      tabs: [...shared.values()],
    }));
  };
  ws.onmessage = (event) => onMessage(ws, event.data);
  ws.onclose = (event) => {
    if (socket !== ws) return;
    socket = null;
    ready = false;
    clearInterval(pingTimer);
    scheduleReconnect(event.code === 1008 ? 'the relay refused the token' : `closed (${event.code})`);
  };
  ws.onerror = () => {}; // onclose follows and schedules the retry
}

function reconnect() {
  if (socket) {
    const old = socket;
    socket = null;
    ready = false;
    old.close();
  }
  connect();
}

function scheduleReconnect(why) {
  lastError = why;
  updateTitle();
  if (retryTimer) return;
  retryTimer = setTimeout(connect, backoff);
  backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
}

function send(message) {
  if (socket && ready) socket.send(JSON.stringify(message));
}

async function onMessage(ws, data) {
  let message;
  try {
    message = JSON.parse(data);
  } catch (err) {
    return;
  }
  if (message.type === 'welcome') {
    ready = true;
    backoff = BACKOFF_MIN_MS;
    lastError = '';
    updateTitle();
    clearInterval(pingTimer);
    pingTimer = setInterval(() => send({type: 'ping'}), PING_MS);
    // tabs shared or unshared between our hello and this welcome were not sent: say them all
    send({type: 'tabs', tabs: [...shared.values()]});
    return;
  }
  if (message.type === 'pong' || message.id === undefined) return;
  let reply;
  try {
    reply = {id: message.id, result: await perform(message)};
  } catch (err) {
    reply = {id: message.id, error: {message: err && err.message ? err.message : String(err)}};
  }
  if (socket === ws && ready) ws.send(JSON.stringify(reply));
}

// What the relay asks for: a CDP command on a shared tab (or one of its child sessions), or a
// tab operation for Target.createTarget / closeTarget / activateTarget.
async function perform(message) {
  switch (message.type) {
    case 'cdp': {
      if (!shared.has(message.tabId)) throw new Error(`tab ${message.tabId} is not shared`);
      const target = {tabId: message.tabId};
      if (message.sessionId) target.sessionId = message.sessionId;
      return (await chrome.debugger.sendCommand(target, message.method, message.params || {})) || {};
    }
    case 'createTab': {
      const tab = await chrome.tabs.create({url: message.url || 'about:blank', active: true});
      return await attachTab(tab.id);
    }
    case 'closeTab':
      requireShared(message.tabId);
      await chrome.tabs.remove(message.tabId);
      return {};
    case 'activateTab': {
      requireShared(message.tabId);
      const tab = await chrome.tabs.update(message.tabId, {active: true});
      await chrome.windows.update(tab.windowId, {focused: true});
      return {};
    }
    case 'resetTab':
      // the DevTools client left: a fresh debugger session drops whatever it had switched on
      // (request interception, emulation, injected scripts), the tab stays shared
      requireShared(message.tabId);
      await chrome.debugger.detach({tabId: message.tabId});
      await chrome.debugger.attach({tabId: message.tabId}, PROTOCOL_VERSION);
      return {};
    default:
      throw new Error(`unknown request type ${message.type}`);
  }
}

function requireShared(tabId) {
  if (!shared.has(tabId)) throw new Error(`tab ${tabId} is not shared`);
}

// -- sharing tabs (the toolbar button) --------------------------------------------------------
async function toggleTab(tabId) {
  if (shared.has(tabId)) {
    await detachTab(tabId);
    return {shared: false, tabId};
  }
  const {token} = await settings();
  if (!token) {
    chrome.runtime.openOptionsPage();
    throw new Error('not paired with clawd yet: set the relay token in the options page');
  }
  return {shared: true, ...(await attachTab(tabId))};
}

async function attachTab(tabId) {
  await chrome.debugger.attach({tabId}, PROTOCOL_VERSION);
  const targets = await chrome.debugger.getTargets();
  const target = targets.find((t) => t.tabId === tabId);
  const tab = await chrome.tabs.get(tabId);
  const info = {tabId, targetId: target ? target.id : `tab-${tabId}`, url: tab.url || '', title: tab.title || ''};
  shared.set(tabId, info);
  await remember();
  await setBadge(tabId, true);
  send({type: 'attached', tab: info});
  return info;
}

async function detachTab(tabId) {
  forget(tabId, 'detached by the user');
  try {
    await chrome.debugger.detach({tabId});
  } catch (err) {
    // already gone (tab closed, or the user cancelled the debugging infobar)
  }
}

function forget(tabId, reason) {
  if (!shared.delete(tabId)) return;
  remember();
  setBadge(tabId, false);
  send({type: 'detached', tabId, reason});
}

async function setBadge(tabId, on) {
  try {
    await chrome.action.setBadgeText({tabId, text: on ? 'ON' : ''});
    if (on) await chrome.action.setBadgeBackgroundColor({tabId, color: '#FF4500'});
    await chrome.action.setTitle({tabId, title: on ? 'clawd: shared (click to stop)' : 'clawd: share this tab'});
  } catch (err) {
    // the tab is closing
  }
}

function updateTitle() {
  chrome.action.setTitle({title: lastError ? `clawd: ${lastError}` : 'clawd: share this tab'});
}

async function remember() {
  await chrome.storage.session.set({shared: [...shared.keys()]});
}

// A worker restarted by Chrome finds the tabs it had shared still attached.
async function restore() {
  const {shared: ids = []} = await chrome.storage.session.get('shared');
  const targets = await chrome.debugger.getTargets();
  for (const tabId of ids) {
    const target = targets.find((t) => t.tabId === tabId && t.attached);
    if (target) {
      shared.set(tabId, {tabId, targetId: target.id, url: target.url, title: target.title});
      await setBadge(tabId, true);
    }
  }
  await remember();
}

chrome.action.onClicked.addListener((tab) => {
  toggleTab(tab.id).catch((err) => {
    lastError = err.message;
    updateTitle();
  });
});

chrome.debugger.onEvent.addListener((source, method, params) => {
  if (!shared.has(source.tabId)) return;
  const message = {type: 'event', tabId: source.tabId, method, params: params || {}};
  if (source.sessionId) message.sessionId = source.sessionId;
  send(message);
});

chrome.debugger.onDetach.addListener((source, reason) => {
  if (source.tabId !== undefined) forget(source.tabId, reason);
});

// A window a shared tab opens stays unshared until the user shares it, but the act that opened
// it should still say a tab opened: tell the relay which shared tab opened it, and where to.
// window.open's tab is created before it has a URL (measured: none at onCreated), so the report
// waits for its first URL, at most OPENED_URL_MS.
const OPENED_URL_MS = 2000;
const opening = new Map(); // tabId of a window a shared tab opened -> {openerTabId, timer}

chrome.tabs.onCreated.addListener((tab) => {
  if (tab.openerTabId === undefined || !shared.has(tab.openerTabId) || shared.has(tab.id)) return;
  const url = tab.pendingUrl || tab.url || '';
  if (url && url !== 'about:blank') {
    send({type: 'tabOpened', openerTabId: tab.openerTabId, url});
    return;
  }
  const timer = setTimeout(() => reportOpened(tab.id, ''), OPENED_URL_MS);
  opening.set(tab.id, {openerTabId: tab.openerTabId, timer});
});

function reportOpened(tabId, url) {
  const pending = opening.get(tabId);
  if (!pending) return;
  opening.delete(tabId);
  clearTimeout(pending.timer);
  send({type: 'tabOpened', openerTabId: pending.openerTabId, url});
}

chrome.tabs.onUpdated.addListener((tabId, change, tab) => {
  const url = change.url || tab.pendingUrl;
  if (opening.has(tabId) && url && url !== 'about:blank') reportOpened(tabId, url);
  const info = shared.get(tabId);
  if (!info) return;
  if (change.status) setBadge(tabId, true); // a navigation may clear the tab's own badge
  if (change.url === undefined && change.title === undefined) return;
  info.url = tab.url || info.url;
  info.title = tab.title || info.title;
  send({type: 'tabUpdated', tab: info});
});

restore().finally(connect);
