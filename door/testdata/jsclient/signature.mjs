// signature.mjs — Agent Card signatures (A2A §8.4) through @a2a-js/sdk's own
// canonicalizeAgentCard, verifyAgentCardSignature and
// generateAgentCardSignature. door/jsclient_test.go runs it.
//
//   node signature.mjs <door url> <card public key, JWK JSON>
//
// Prints three lines: "canonical <JCS form of the door's card>", "verified
// <kid>" when the door's signature verifies with the key, and "signed <card
// JSON>": the door's card, its signatures dropped, signed by the SDK with a
// fresh Ed25519 key under kid "a2a-js", followed by "key <that key's public
// JWK>". Exits 1 when the door's signature does not verify.
import { canonicalizeAgentCard, verifyAgentCardSignature, generateAgentCardSignature } from "@a2a-js/sdk";
import * as jose from "jose";

const [url, jwk] = process.argv.slice(2);
const card = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
console.log(`canonical ${canonicalizeAgentCard(card)}`);

const doorKey = await jose.importJWK(JSON.parse(jwk), "EdDSA");
let kid = "";
try {
  await verifyAgentCardSignature(async (k) => { kid = k; return doorKey; })(card);
  console.log(`verified ${kid}`);
} catch (err) {
  console.log(`FAIL verify: ${err.message}`);
  process.exitCode = 1;
}

const { publicKey, privateKey } = await jose.generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
const { signatures, ...unsigned } = card;
const signed = await generateAgentCardSignature(privateKey, { alg: "EdDSA", typ: "JOSE", kid: "a2a-js" })(unsigned);
console.log(`signed ${JSON.stringify(signed)}`);
console.log(`key ${JSON.stringify(await jose.exportJWK(publicKey))}`);
