<?php
/**
 * The admin menu `rtac`, the plugin's admin assets (on its own screens only),
 * the notices that follow a redirect with `rtac_msg` and the one shown where
 * the sidecar could not be reached.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Admin {

	private Rtac_Admin_Settings $settings_page;
	private Rtac_Admin_Unanswered $unanswered;
	private Rtac_Admin_Reindex $reindex;
	private ?Rtac_Admin_Conversations $conversations;

	/** @var array<string, string> page slug => hook suffix */
	private array $screens = array();

	public function __construct( Rtac_Admin_Settings $settings_page, Rtac_Admin_Unanswered $unanswered, Rtac_Admin_Reindex $reindex, ?Rtac_Admin_Conversations $conversations = null ) {
		$this->settings_page = $settings_page;
		$this->unanswered    = $unanswered;
		$this->reindex       = $reindex;
		$this->conversations = $conversations;
	}

	/** admin_menu, priority 9: before WordPress adds the post-type submenus under `rtac`. */
	public function register_menu(): void {
		$this->screens['rtac'] = (string) add_menu_page(
			__( 'Chat assistant', 'rtac' ),
			__( 'Assistant', 'rtac' ),
			Rtac_Capability::MANAGE,
			'rtac',
			array( $this->settings_page, 'render' ),
			'dashicons-format-chat',
			58
		);
		add_submenu_page( 'rtac', __( 'Assistant settings', 'rtac' ), __( 'Settings', 'rtac' ), Rtac_Capability::MANAGE, 'rtac', array( $this->settings_page, 'render' ) );
	}

	/** admin_menu, priority 11: after the knowledge base and leads. */
	public function register_submenus(): void {
		$this->screens['rtac-unanswered'] = (string) add_submenu_page(
			'rtac',
			__( 'Unanswered questions', 'rtac' ),
			__( 'Unanswered', 'rtac' ),
			Rtac_Capability::MANAGE,
			'rtac-unanswered',
			array( $this->unanswered, 'render' )
		);
		if ( null !== $this->conversations ) {
			// The plugin's own capability, so a role such as a shop manager can read the log
			// without managing the site.
			$this->screens[ Rtac_Admin_Conversations::PAGE ] = (string) add_submenu_page(
				'rtac',
				__( 'Conversations', 'rtac' ),
				__( 'Conversations', 'rtac' ),
				Rtac_Registry::CAP_VIEW_CONVERSATIONS,
				Rtac_Admin_Conversations::PAGE,
				array( $this->conversations, 'render' )
			);
		}
		$this->screens['rtac-reindex'] = (string) add_submenu_page(
			'rtac',
			__( 'Re-index content', 'rtac' ),
			__( 'Re-index', 'rtac' ),
			Rtac_Capability::MANAGE,
			'rtac-reindex',
			array( $this->reindex, 'render' )
		);
		if ( '' !== $this->screens['rtac-unanswered'] ) {
			// Bulk actions are handled before any output, so they can redirect.
			add_action( 'load-' . $this->screens['rtac-unanswered'], array( $this->unanswered, 'on_load' ) );
		}
	}

	/** admin_enqueue_scripts: styles on the plugin's screens and the dashboard only. */
	public function enqueue( string $hook_suffix ): void {
		$ours = in_array( $hook_suffix, $this->screens, true );
		if ( $ours || 'index.php' === $hook_suffix ) {
			wp_enqueue_style( 'rtac-admin', plugins_url( 'assets/admin.css', RTAC_FILE ), array(), RTAC_VERSION );
		}
		if ( ( $this->screens['rtac-reindex'] ?? null ) === $hook_suffix ) {
			$this->reindex->enqueue();
		}
	}

	/**
	 * The notice for `?rtac_msg=<code>` after a redirect. Codes, not texts, travel
	 * in the URL, so nothing in it is ever printed as given.
	 */
	public static function render_notice(): void {
		$code  = isset( $_GET['rtac_msg'] ) ? sanitize_key( wp_unslash( $_GET['rtac_msg'] ) ) : ''; // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- display only
		$count = isset( $_GET['rtac_n'] ) ? absint( $_GET['rtac_n'] ) : 0; // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- display only
		$map   = array(
			'tested'           => array( 'info', __( 'Connection tested; the results are below.', 'rtac' ) ),
			/* translators: %d: number of questions. */
			'dismissed'        => array( 'success', sprintf( _n( '%d question dismissed.', '%d questions dismissed.', $count, 'rtac' ), $count ) ),
			'dismiss_failed'   => array( 'error', __( 'The question could not be dismissed: the assistant service did not answer. Please try again.', 'rtac' ) ),
			'nothing_selected' => array( 'warning', __( 'No questions were selected.', 'rtac' ) ),
			'kb_added'         => array( 'success', __( 'The answer was added to the knowledge base and the question marked as resolved.', 'rtac' ) ),
			'kb_added_only'    => array( 'success', __( 'The answer was added to the knowledge base.', 'rtac' ) ),
			'kb_added_open'    => array( 'warning', __( 'The answer was added to the knowledge base, but the question could not be marked as resolved. You can dismiss it later.', 'rtac' ) ),
			'kb_failed'        => array( 'error', __( 'The knowledge base entry could not be created.', 'rtac' ) ),
			'answer_empty'     => array( 'error', __( 'Please write an answer first.', 'rtac' ) ),
		);
		if ( ! isset( $map[ $code ] ) ) {
			return;
		}
		list( $type, $text ) = $map[ $code ];
		printf( '<div class="notice notice-%1$s is-dismissible"><p>%2$s</p></div>', esc_attr( $type ), esc_html( $text ) );
	}

	/** In place of what the sidecar would have shown: it could not be reached, and where to check the connection. */
	public static function render_unreachable( WP_Error $error ): void {
		echo '<div class="notice notice-warning inline"><p>';
		esc_html_e( 'The assistant service could not be reached just now, so this information is not available. Please try again in a few minutes.', 'rtac' );
		echo '</p><p><small>' . esc_html( $error->get_error_message() ) . '</small> ';
		printf( '<a href="%1$s">%2$s</a>', esc_url( self::page_url( 'rtac', array( 'tab' => 'connection' ) ) ), esc_html__( 'Check the connection settings', 'rtac' ) );
		echo '</p></div>';
	}

	/**
	 * register_post_type() arguments for a post type seen in wp-admin only, under
	 * the Assistant menu: never a page, an archive, a search result, a menu item
	 * or a REST route of the site. $args adds the rest.
	 */
	public static function post_type_args( array $args ): array {
		return $args + array(
			'public'              => false,
			'publicly_queryable'  => false,
			'exclude_from_search' => true,
			'show_in_nav_menus'   => false,
			'show_ui'             => true,
			'show_in_menu'        => 'rtac',
			'show_in_rest'        => false,
			'has_archive'         => false,
			'rewrite'             => false,
			'query_var'           => false,
		);
	}

	/** A post list's columns with `$extra` added before the date column, which stays last. */
	public static function columns_before_date( array $columns, array $extra ): array {
		$date = $columns['date'] ?? null;
		unset( $columns['date'] );
		$columns += $extra;
		if ( null !== $date ) {
			$columns['date'] = $date;
		}
		return $columns;
	}

	/** The URL of one of the plugin's pages with a message code. */
	public static function page_url( string $page, array $args = array() ): string {
		return add_query_arg( array_merge( array( 'page' => $page ), $args ), admin_url( 'admin.php' ) );
	}
}
