//! One sync exchange with the server, sans-IO: the y-sync protocol (as y-sweet speaks it)
//! as a state machine that takes the server's messages and returns the ones to send.
//!
//! The client sends its state vector; the server answers with what the client lacks
//! (`SyncStep2`) and sends its own state vector, to which the client answers with what
//! the server lacks, followed by y-sweet's sync-status message carrying a fresh nonce.
//! The server handles a connection's messages in order and echoes the status once it
//! has applied everything before it — so the echo means "the server holds it all".
//! The exchange is done when the client has both applied the server's step 2 and seen
//! its own echo. A dropped connection before that changes nothing on the server that a
//! later exchange would not redo: updates are idempotent.

use crate::replica::{Replica, ReplicaError};
use yrs::sync::{Message, SyncMessage};
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;

/// The WebSocket address of `space` on the y-sweet server at `server` (`ws://HOST:PORT`):
/// y-sweet names the document twice, as Yjs's own provider expects.
pub fn url(server: &str, space: &str) -> String {
    format!("{}/d/{space}/ws/{space}", server.trim_end_matches('/'))
}

/// y-sweet's sync-status message tag (echoed back by the server).
const SYNC_STATUS: u8 = 102;

/// Where an exchange stands.
#[derive(Debug)]
pub struct Session {
    nonce: Vec<u8>,
    received: bool,
    acked: bool,
    /// Updates applied from the server in this exchange.
    pub applied: usize,
}

impl Session {
    /// Starts an exchange: the session and the first message to send.
    pub fn start(replica: &Replica, nonce: [u8; 8]) -> (Session, Vec<u8>) {
        let step1 = client_step1(replica);
        (Session { nonce: nonce.to_vec(), received: false, acked: false, applied: 0 }, step1)
    }

    /// Handles one binary message from the server; returns the messages to send back.
    pub fn receive(&mut self, replica: &Replica, bytes: &[u8]) -> Result<Vec<Vec<u8>>, ReplicaError> {
        let message = Message::decode_v1(bytes).map_err(|e| ReplicaError(format!("a server message: {e}")))?;
        match message {
            Message::Sync(SyncMessage::SyncStep1(sv)) => {
                let diff = replica.diff(&sv.encode_v1())?;
                let step2 = Message::Sync(SyncMessage::SyncStep2(diff)).encode_v1();
                let status = Message::Custom(SYNC_STATUS, self.nonce.clone()).encode_v1();
                Ok(vec![step2, status])
            }
            Message::Sync(SyncMessage::SyncStep2(update)) => {
                replica.apply(&update)?;
                self.received = true;
                self.applied += 1;
                Ok(Vec::new())
            }
            // Another client's live edit, or the server's echo of this one's step 2 (harmless).
            Message::Sync(SyncMessage::Update(update)) => {
                replica.apply(&update)?;
                self.applied += 1;
                Ok(Vec::new())
            }
            Message::Custom(SYNC_STATUS, echoed) if echoed == self.nonce => {
                self.acked = true;
                Ok(Vec::new())
            }
            // Awareness, auth and other peers' status echoes carry nothing for a memory.
            _ => Ok(Vec::new()),
        }
    }

    /// Both ways are complete: the client holds what the server held when it answered,
    /// and the server acknowledged holding everything the client sent.
    pub fn done(&self) -> bool {
        self.received && self.acked
    }
}

fn client_step1(replica: &Replica) -> Vec<u8> {
    let sv = yrs::StateVector::decode_v1(&replica.state_vector()).unwrap_or_default();
    Message::Sync(SyncMessage::SyncStep1(sv)).encode_v1()
}

/// A server for tests: answers a client the way y-sweet does, over a replica of its own.
/// Used by the property test to drive three devices through the real Yjs without a
/// network; the real server is exercised by the command line's tests.
#[derive(Debug)]
pub struct LoopbackServer {
    pub replica: Replica,
}

impl LoopbackServer {
    pub fn new() -> LoopbackServer {
        LoopbackServer { replica: Replica::new(1) }
    }

    /// The messages the server sends when a client connects.
    pub fn hello(&self) -> Vec<Vec<u8>> {
        vec![client_step1(&self.replica)]
    }

    /// Handles one client message; returns the server's answers.
    pub fn receive(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, ReplicaError> {
        let message = Message::decode_v1(bytes).map_err(|e| ReplicaError(e.to_string()))?;
        Ok(match message {
            Message::Sync(SyncMessage::SyncStep1(sv)) => {
                let diff = self.replica.diff(&sv.encode_v1())?;
                vec![Message::Sync(SyncMessage::SyncStep2(diff)).encode_v1()]
            }
            Message::Sync(SyncMessage::SyncStep2(u)) | Message::Sync(SyncMessage::Update(u)) => {
                self.replica.apply(&u)?;
                Vec::new()
            }
            Message::Custom(SYNC_STATUS, data) => vec![Message::Custom(SYNC_STATUS, data).encode_v1()],
            _ => Vec::new(),
        })
    }

    /// Runs one whole exchange with `client` in memory.
    pub fn exchange(&self, client: &Replica, nonce: [u8; 8]) -> Result<(), ReplicaError> {
        let (mut session, first) = Session::start(client, nonce);
        let mut to_server = vec![first];
        let mut to_client = self.hello();
        while !session.done() {
            if to_server.is_empty() && to_client.is_empty() {
                return Err(ReplicaError("the exchange stalled".into()));
            }
            for m in std::mem::take(&mut to_server) {
                to_client.extend(self.receive(&m)?);
            }
            for m in std::mem::take(&mut to_client) {
                to_server.extend(session.receive(client, &m)?);
            }
        }
        Ok(())
    }
}

impl Default for LoopbackServer {
    fn default() -> Self {
        LoopbackServer::new()
    }
}
