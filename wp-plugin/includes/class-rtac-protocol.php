<?php
/**
 * What the plugin and the sidecar must agree on: the limits the sidecar's
 * validation sets on what the plugin sends (sidecar/validation.py), the
 * actions a reply may carry (sidecar/reply.py), how long the sidecar gives a
 * turn (RTAC_TURN_DEADLINE's default) and how far apart the two clocks may be
 * for a signature (sidecar/signing.py).
 *
 * A value here that the sidecar does not share would turn visitors' messages
 * into refused requests or cut answers short; tests/test_plugin_shared_values.py
 * compares each with the sidecar's own.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Protocol {

	/** The longest visitor message, in characters. */
	const MAX_MESSAGE = 4000;

	/** The actions of a reply. */
	const ACTIONS = array( 'none', 'offer_booking', 'offer_lead', 'show_contact' );

	/** The most quick replies a reply carries. */
	const MAX_QUICK_REPLIES = 3;

	/** Seconds the sidecar gives a turn before it answers offline. */
	const TURN_DEADLINE = 40;

	/** The sidecar refuses a signature whose timestamp is further off than this (seconds). */
	const SIGNATURE_WINDOW = 300;

	// Lengths, in characters, of what a turn and a document carry.
	const MAX_CONVERSATION_ID = 64;
	const MAX_LANG            = 35;
	const MAX_URL             = 2048;
	const MAX_TITLE           = 512;

	/** Pinned entries a turn may carry, and the longest content of one. */
	const MAX_PINNED         = 50;
	const MAX_PINNED_CONTENT = 100000;

	/** The longest text of one synced document. */
	const MAX_DOCUMENT_CONTENT = 2000000;
}
