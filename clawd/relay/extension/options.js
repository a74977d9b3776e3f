'use strict';

const form = document.getElementById('form');
const port = document.getElementById('port');
const token = document.getElementById('token');
const status = document.getElementById('status');

chrome.storage.local.get({port: 18792, token: ''}).then((stored) => {
  port.value = stored.port;
  token.value = stored.token;
});

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  await chrome.storage.local.set({port: Number(port.value), token: token.value.trim()});
  status.textContent = 'Saved: the extension connects to ws://127.0.0.1:' + port.value + '/extension';
});
