// SPDX-License-Identifier: GPL-2.0
// A ten-line HTTP server as Node.js users write them, on PORT (all
// addresses, as server.listen(port) does): each answer counts the
// requests served so far, so a restored server shows it kept its state.
// Idle connections are kept (no keep-alive timeout), so a client's
// connection outlives a dump and restore however long they take.
//
//   node hello.js PORT
const http = require('http');
let served = 0;
const server = http.createServer((req, res) => {
  served++;
  res.end(`hello ${served}\n`);
});
server.keepAliveTimeout = 0;
server.listen(Number(process.argv[2]));
