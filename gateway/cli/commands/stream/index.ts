/**
 * `cli stream`: the stream marketplace from the command line (docs/stream-marketplace.md "CLI"):
 *   publish <dir>        seller: chunk, encrypt, sign, upload, list
 *   verify <listingId>   buyer: check manifests, signatures and chain before buying
 *   buy <listingId>      buyer: verify, order (or purchase), pay on the chain, wait for access, download, decrypt
 *   serve                seller agent: prepare buyers' access; deliver purchases peer to peer
 *   deactivate, reactivate <listingId>; revoke-key [<keyId>]   seller: withdraw a listing or a signing key
 * One JSON line per result on stdout, progress on stderr, a message naming the code for every refusal (exit 1).
 */
import type { CliCommandGroup } from "../../command.js";
import { BUY_USAGE, buyCommand } from "./buy.js";
import { PUBLISH_USAGE, publishCommand } from "./publish.js";
import { SERVE_USAGE, serveCommand } from "./serve.js";
import { VERIFY_USAGE, verifyCommand } from "./verify.js";
import {
  DEACTIVATE_USAGE, REACTIVATE_USAGE, REVOKE_KEY_USAGE, deactivateCommand, reactivateCommand, revokeKeyCommand,
} from "./withdraw.js";

export const streamCommands: CliCommandGroup = {
  subcommands: [
    { name: "publish", summary: "seller: chunk, encrypt, sign and upload a directory, and list it", usage: PUBLISH_USAGE, run: publishCommand },
    { name: "verify", summary: "buyer: check a listing's manifests, signatures and chain before buying", usage: VERIFY_USAGE, run: verifyCommand },
    { name: "buy", summary: "buyer: verify, order, pay on the chain, download, check and decrypt", usage: BUY_USAGE, run: buyCommand },
    { name: "serve", summary: "seller agent: prepare buyers' access and deliver purchases peer to peer", usage: SERVE_USAGE, run: serveCommand },
    { name: "deactivate", summary: "seller: take a listing off sale (and out of the catalogue)", usage: DEACTIVATE_USAGE, run: deactivateCommand },
    { name: "reactivate", summary: "seller: put a deactivated listing back on sale", usage: REACTIVATE_USAGE, run: reactivateCommand },
    { name: "revoke-key", summary: "seller: revoke a signing key (no new chunk under it)", usage: REVOKE_KEY_USAGE, run: revokeKeyCommand },
  ],
};
