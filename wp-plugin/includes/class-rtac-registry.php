<?php
/**
 * Everything the plugin stores, in one list.
 *
 * uninstall.php deletes exactly what is listed here and the privacy exporter
 * and eraser look people up through it, so a new option or meta key that is
 * not added here would outlive the plugin or escape an erasure request.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Registry {

	// Options (wp_options). One per settings tab, so saving one tab never
	// rewrites another tab's values.
	const OPTION_CONNECTION = 'rtac_connection';
	const OPTION_PROFILE    = 'rtac_profile';
	const OPTION_WIDGET     = 'rtac_widget';
	const OPTION_PRIVACY    = 'rtac_privacy';
	const OPTION_LIMITS     = 'rtac_limits';
	const OPTION_SYNC_QUEUE = 'rtac_sync_queue';
	// The upgrade steps already run on this site (Rtac_Plugin::UPGRADE_LEVEL).
	const OPTION_UPGRADE = 'rtac_upgrade';
	// The Site Health streaming test's last finding (whether this host buffers streamed answers, and when).
	const OPTION_STREAMING = 'rtac_streaming';

	// Post types.
	const POST_TYPE_KB   = 'rtac_kb';
	const POST_TYPE_LEAD = 'rtac_lead';

	// Post meta of rtac_kb.
	const META_KB_LANG   = 'rtac_lang';
	const META_KB_PINNED = 'rtac_pinned';

	// Post meta of rtac_lead.
	const META_LEAD_NAME         = 'rtac_name';
	const META_LEAD_EMAIL        = 'rtac_email';
	const META_LEAD_PHONE        = 'rtac_phone';
	const META_LEAD_MESSAGE      = 'rtac_message';
	const META_LEAD_VISITOR      = 'rtac_visitor_id';
	const META_LEAD_CONVERSATION = 'rtac_conversation_id';

	// User meta: a logged-in user who left contacts (lead_captured on later turns).
	const USER_META_LEAD = 'rtac_lead_captured';

	// Transient prefixes (each followed by a hash or an id).
	// (The rate limits' counters of 0.1.0; they live in TABLE_COUNTERS now. Still removed on uninstall.)
	const TRANSIENT_RATE_IP      = 'rtac_rl_ip_';
	const TRANSIENT_RATE_VISITOR = 'rtac_rl_v_';
	const TRANSIENT_LEAD         = 'rtac_lead_';
	const TRANSIENT_TEST_RESULT  = 'rtac_test_';
	const TRANSIENT_DASHBOARD    = 'rtac_dash_';
	// The one-time key of a Site Health streaming probe (a hash of it), for a minute.
	const TRANSIENT_STREAM_PROBE = 'rtac_probe_';

	// Cookies (first-party, set by the chat and lead routes).
	const COOKIE_VISITOR = 'rtac_visitor';

	// Capabilities. The primitive one is granted to administrators and can be given to
	// any role (e.g. a shop manager); the meta capability (one conversation) maps to it.
	const CAP_VIEW_CONVERSATIONS = 'rtac_view_conversations';
	const CAP_VIEW_CONVERSATION  = 'rtac_view_conversation';

	// Cron hooks.
	const CRON_SYNC_RETRY = 'rtac_sync_retry';

	// Tables (after $wpdb->prefix): the atomic rate-limit and lead-cap counters (Rtac_Counter).
	const TABLE_COUNTERS = 'rtac_counters';

	/** @return string[] */
	public static function options(): array {
		return array(
			self::OPTION_CONNECTION,
			self::OPTION_PROFILE,
			self::OPTION_WIDGET,
			self::OPTION_PRIVACY,
			self::OPTION_LIMITS,
			self::OPTION_SYNC_QUEUE,
			self::OPTION_UPGRADE,
			self::OPTION_STREAMING,
		);
	}

	/** @return string[] capabilities the plugin grants to roles (removed from every role on uninstall) */
	public static function capabilities(): array {
		return array( self::CAP_VIEW_CONVERSATIONS );
	}

	/** @return string[] */
	public static function post_types(): array {
		return array( self::POST_TYPE_KB, self::POST_TYPE_LEAD );
	}

	/** @return array<string, string[]> post type => its meta keys */
	public static function post_meta(): array {
		return array(
			self::POST_TYPE_KB   => array( self::META_KB_LANG, self::META_KB_PINNED ),
			self::POST_TYPE_LEAD => array(
				self::META_LEAD_NAME,
				self::META_LEAD_EMAIL,
				self::META_LEAD_PHONE,
				self::META_LEAD_MESSAGE,
				self::META_LEAD_VISITOR,
				self::META_LEAD_CONVERSATION,
			),
		);
	}

	/** @return string[] */
	public static function user_meta(): array {
		return array( self::USER_META_LEAD );
	}

	/** @return string[] */
	public static function transient_prefixes(): array {
		return array(
			self::TRANSIENT_RATE_IP,
			self::TRANSIENT_RATE_VISITOR,
			self::TRANSIENT_LEAD,
			self::TRANSIENT_TEST_RESULT,
			self::TRANSIENT_DASHBOARD,
			self::TRANSIENT_STREAM_PROBE,
		);
	}

	/** @return string[] table names without $wpdb->prefix */
	public static function tables(): array {
		return array( self::TABLE_COUNTERS );
	}

	/** @return string[] */
	public static function cron_hooks(): array {
		return array( self::CRON_SYNC_RETRY );
	}

	/** @return string[] */
	public static function cookies(): array {
		return array( self::COOKIE_VISITOR );
	}

	/**
	 * Transient key holding "this visitor left contacts". Hashed so a cookie
	 * value never appears verbatim in wp_options.
	 */
	public static function lead_transient( string $visitor_id ): string {
		return self::TRANSIENT_LEAD . substr( hash( 'sha256', $visitor_id ), 0, 32 );
	}

	/** Transient key of the dashboard widget's numbers (dropped when a question is resolved or dismissed). */
	public static function dashboard_transient(): string {
		return self::TRANSIENT_DASHBOARD . 'data';
	}
}
