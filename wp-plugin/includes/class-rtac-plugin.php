<?php
/**
 * Builds the plugin's objects and lists every hook it uses, in one place.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Plugin {

	/** Raise when an upgrade step is added to upgrade(); existing sites run it once, on their next request. */
	const UPGRADE_LEVEL = 1;

	private static ?Rtac_Plugin $instance = null;

	private Rtac_Settings $settings;
	private Rtac_Context $context;
	private Rtac_Rate_Limiter $limiter;
	private Rtac_Knowledge_Base $kb;
	private Rtac_Leads $leads;
	private Rtac_Chat $chat;
	private Rtac_Sync $sync;
	private Rtac_Reindexer $reindexer;
	private Rtac_Rest $rest;
	private Rtac_Widget $widget;
	private Rtac_Privacy $privacy;
	private Rtac_Admin_Settings $admin_settings;
	private Rtac_Unanswered_Report $unanswered;
	private Rtac_Admin_Unanswered $admin_unanswered;
	private Rtac_Admin_Reindex $admin_reindex;
	private Rtac_Admin_Conversations $conversations;
	private Rtac_Site_Health $site_health;
	private Rtac_Admin $admin;
	private Rtac_Dashboard $dashboard;

	public static function instance(): self {
		if ( null === self::$instance ) {
			self::$instance = new self();
		}
		return self::$instance;
	}

	private function __construct() {
		// No client is built here: each request builds one from the settings of
		// that moment, so a changed setting (or a test's update_option) applies at once.
		$this->settings         = new Rtac_Settings();
		$this->context          = new Rtac_Context( $this->settings );
		$this->limiter          = new Rtac_Rate_Limiter( $this->settings );
		$this->kb               = new Rtac_Knowledge_Base();
		$this->leads            = new Rtac_Leads( $this->limiter );
		$this->chat             = new Rtac_Chat( $this->settings, $this->context, $this->limiter );
		$this->sync             = new Rtac_Sync( $this->settings, new Rtac_Sync_Queue() );
		$this->reindexer        = new Rtac_Reindexer( $this->settings, $this->sync );
		$this->rest             = new Rtac_Rest( $this->chat, $this->leads, $this->reindexer );
		$this->widget           = new Rtac_Widget( $this->settings );
		$this->privacy          = new Rtac_Privacy( $this->settings );
		$this->admin_settings   = new Rtac_Admin_Settings( $this->settings );
		$this->unanswered       = new Rtac_Unanswered_Report( $this->settings );
		$this->admin_unanswered = new Rtac_Admin_Unanswered( $this->settings, $this->unanswered );
		$this->admin_reindex    = new Rtac_Admin_Reindex( $this->settings, $this->reindexer, $this->sync->queue() );
		$this->conversations    = new Rtac_Admin_Conversations( $this->settings );
		$this->site_health      = new Rtac_Site_Health( $this->settings, $this->sync->queue() );
		$this->admin            = new Rtac_Admin( $this->admin_settings, $this->admin_unanswered, $this->admin_reindex, $this->conversations );
		$this->dashboard        = new Rtac_Dashboard( $this->settings, $this->unanswered );
	}

	/** Every hook of the plugin. (Rtac_Admin adds one more: load-{unanswered page}, whose name exists only after the menu.) */
	public function init_hooks(): void {
		// Boot.
		add_action( 'init', array( $this, 'load_textdomain' ), 0 );
		add_action( 'change_locale', array( $this, 'load_textdomain' ) );
		add_action( 'init', array( $this->kb, 'register' ) );
		add_action( 'init', array( $this->leads, 'register' ) );
		add_action( 'init', array( __CLASS__, 'maybe_upgrade' ), 1 );
		add_filter( 'map_meta_cap', array( $this->conversations, 'map_meta_cap' ), 10, 4 );

		// Public: REST routes and the widget.
		add_action( 'rest_api_init', array( $this->rest, 'register_routes' ) );
		add_action( 'rest_api_init', array( $this->site_health, 'register_routes' ) );
		// Late, after the REST server's own headers (CORS among them): streamed answers replace its JSON output.
		add_filter( 'rest_pre_serve_request', array( 'Rtac_Stream_Relay', 'serve' ), 100, 3 );
		add_action( 'wp_enqueue_scripts', array( $this->widget, 'enqueue' ) );
		add_filter( 'script_loader_tag', array( $this->widget, 'filter_script_loader_tag' ), 10, 2 );

		// Content sync: collect during the request, send once at shutdown, retry by cron.
		add_action( 'transition_post_status', array( $this->sync, 'on_transition_post_status' ), 10, 3 );
		add_action( 'save_post', array( $this->sync, 'on_save_post' ), 10, 2 );
		add_action( 'trashed_post', array( $this->sync, 'on_trashed_post' ) );
		add_action( 'before_delete_post', array( $this->sync, 'on_before_delete_post' ) );
		add_action( 'shutdown', array( $this->sync, 'flush' ) );
		add_action( Rtac_Registry::CRON_SYNC_RETRY, array( $this->sync, 'retry' ) );

		// Knowledge base and leads in wp-admin.
		add_action( 'save_post_' . Rtac_Registry::POST_TYPE_KB, array( $this->kb, 'save_meta' ) );
		add_action( 'add_meta_boxes_' . Rtac_Registry::POST_TYPE_KB, array( $this->kb, 'add_meta_box' ) );
		add_filter( 'manage_' . Rtac_Registry::POST_TYPE_KB . '_posts_columns', array( $this->kb, 'filter_columns' ) );
		add_action( 'manage_' . Rtac_Registry::POST_TYPE_KB . '_posts_custom_column', array( $this->kb, 'render_column' ), 10, 2 );
		add_action( 'add_meta_boxes_' . Rtac_Registry::POST_TYPE_LEAD, array( $this->leads, 'add_meta_box' ) );
		add_filter( 'manage_' . Rtac_Registry::POST_TYPE_LEAD . '_posts_columns', array( $this->leads, 'filter_columns' ) );
		add_action( 'manage_' . Rtac_Registry::POST_TYPE_LEAD . '_posts_custom_column', array( $this->leads, 'render_column' ), 10, 2 );

		// Admin pages, settings and actions.
		add_action( 'admin_menu', array( $this->admin, 'register_menu' ), 9 );
		add_action( 'admin_menu', array( $this->admin, 'register_submenus' ), 11 );
		add_action( 'admin_init', array( $this->admin_settings, 'register' ) );
		add_action( 'admin_init', array( $this->privacy, 'add_policy_content' ) );
		add_action( 'admin_init', array( __CLASS__, 'ensure_cron' ) );
		add_filter( 'site_status_tests', array( $this->site_health, 'register_tests' ) );
		add_action( 'admin_enqueue_scripts', array( $this->admin, 'enqueue' ) );
		add_action( 'admin_post_' . Rtac_Admin_Settings::TEST_ACTION, array( $this->admin_settings, 'handle_test' ) );
		add_action( 'admin_post_' . Rtac_Admin_Unanswered::DISMISS_ACTION, array( $this->admin_unanswered, 'handle_dismiss' ) );
		add_action( 'admin_post_' . Rtac_Admin_Unanswered::ANSWER_ACTION, array( $this->admin_unanswered, 'handle_answer' ) );
		add_action( 'admin_post_' . Rtac_Admin_Unanswered::CSV_ACTION, array( $this->admin_unanswered, 'handle_csv' ) );
		add_action( 'wp_dashboard_setup', array( $this->dashboard, 'register' ) );
		add_filter( 'plugin_action_links_' . plugin_basename( RTAC_FILE ), array( $this, 'filter_action_links' ) );

		// Privacy.
		add_filter( 'wp_privacy_personal_data_exporters', array( $this->privacy, 'register_exporter' ) );
		add_filter( 'wp_privacy_personal_data_erasers', array( $this->privacy, 'register_eraser' ) );

		// WP-CLI.
		if ( defined( 'WP_CLI' ) && WP_CLI ) {
			WP_CLI::add_command( 'rtac', 'Rtac_CLI' );
		}
	}

	public function load_textdomain(): void {
		load_plugin_textdomain( 'rtac', false, dirname( plugin_basename( RTAC_FILE ) ) . '/languages' );
	}

	public function filter_action_links( array $links ): array {
		array_unshift( $links, '<a href="' . esc_url( Rtac_Admin::page_url( 'rtac' ) ) . '">' . esc_html__( 'Settings', 'rtac' ) . '</a>' );
		return $links;
	}

	public static function activate(): void {
		self::ensure_cron();
		self::upgrade();
	}

	/**
	 * init (before the admin menu is built): a site that had the plugin before an
	 * upgrade step existed (an update replaces the files without activating
	 * again) runs it once. One autoloaded option is read otherwise.
	 */
	public static function maybe_upgrade(): void {
		if ( (int) get_option( Rtac_Registry::OPTION_UPGRADE, 0 ) < self::UPGRADE_LEVEL ) {
			self::upgrade();
		}
	}

	/** Every upgrade step, each safe to run again. A capability an owner removed later is not given back. */
	private static function upgrade(): void {
		Rtac_Admin_Conversations::grant_capabilities(); // Level 1: reading the conversation log,
		Rtac_Counter::install();                        // the atomic counters of the abuse limits,
		Rtac_Leads::hash_stored_references();           // leads keep keyed hashes of visitor and conversation ids.
		update_option( Rtac_Registry::OPTION_UPGRADE, self::UPGRADE_LEVEL );
	}

	public static function deactivate(): void {
		wp_clear_scheduled_hook( Rtac_Registry::CRON_SYNC_RETRY );
	}

	/** The hourly retry; re-created if lost (e.g. the plugin was copied in, not activated). */
	public static function ensure_cron(): void {
		// wp_next_scheduled() would also see the one-off retry a failed sync
		// schedules, so look for the recurring event itself.
		if ( ! self::has_recurring_retry() ) {
			wp_schedule_event( time() + HOUR_IN_SECONDS, 'hourly', Rtac_Registry::CRON_SYNC_RETRY );
		}
	}

	private static function has_recurring_retry(): bool {
		foreach ( (array) _get_cron_array() as $hooks ) {
			foreach ( (array) ( $hooks[ Rtac_Registry::CRON_SYNC_RETRY ] ?? array() ) as $event ) {
				if ( ! empty( $event['schedule'] ) ) {
					return true;
				}
			}
		}
		return false;
	}

	/* ---- accessors (tests and the CLI use these) ---- */

	public function settings(): Rtac_Settings {
		return $this->settings;
	}

	public function client(): Rtac_Client {
		return Rtac_Client::from_settings( $this->settings );
	}

	public function context(): Rtac_Context {
		return $this->context;
	}

	public function limiter(): Rtac_Rate_Limiter {
		return $this->limiter;
	}

	public function chat(): Rtac_Chat {
		return $this->chat;
	}

	public function leads(): Rtac_Leads {
		return $this->leads;
	}

	public function knowledge_base(): Rtac_Knowledge_Base {
		return $this->kb;
	}

	public function sync(): Rtac_Sync {
		return $this->sync;
	}

	public function reindexer(): Rtac_Reindexer {
		return $this->reindexer;
	}

	public function widget(): Rtac_Widget {
		return $this->widget;
	}

	public function privacy(): Rtac_Privacy {
		return $this->privacy;
	}

	public function unanswered(): Rtac_Unanswered_Report {
		return $this->unanswered;
	}

	public function dashboard(): Rtac_Dashboard {
		return $this->dashboard;
	}

	public function conversations(): Rtac_Admin_Conversations {
		return $this->conversations;
	}

	public function site_health(): Rtac_Site_Health {
		return $this->site_health;
	}
}
