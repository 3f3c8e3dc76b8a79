// Runs inside the session sandbox (no network but loopback): listens on 127.0.0.1:<port>, pipes
// every connection to the recording proxy's bind-mounted Unix socket, then runs the agent command
// and exits with its status. Usage: node sandbox_forward.js <port> <socket> <command> [args...]
'use strict';
const net = require('net');
const os = require('os');
const { spawn } = require('child_process');

const [port, socketPath, ...command] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream);
  upstream.pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
});
server.on('error', (err) => {
  process.stderr.write(`sandbox forwarder: ${err.message}\n`);
  process.exit(125);
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
  child.on('error', (err) => {
    process.stderr.write(`sandbox forwarder: cannot start ${command[0]}: ${err.message}\n`);
    process.exit(126);
  });
  child.on('exit', (code, signal) => {
    process.exit(code === null ? 128 + (os.constants.signals[signal] || 9) : code);
  });
});
