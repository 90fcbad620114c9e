<?php
/**
 * The unanswered-questions report as a WP_List_Table. Rows come from the
 * sidecar (GET /v1/unanswered?status=open), not from the WordPress database.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

if ( ! class_exists( 'WP_List_Table' ) ) {
	require_once ABSPATH . 'wp-admin/includes/class-wp-list-table.php';
}

class Rtac_Unanswered_Table extends WP_List_Table {

	const PER_PAGE = 20;

	/** @var array<int, array> */
	private array $all_items = array();

	/** The language the report is narrowed to ('' for all). */
	private string $lang = '';

	public function __construct() {
		parent::__construct(
			array(
				'singular' => 'rtac-question',
				'plural'   => 'rtac-questions',
				'ajax'     => false,
				'screen'   => 'rtac-unanswered',
			)
		);
	}

	public function set_language( string $lang ): void {
		$this->lang = $lang;
	}

	public function set_rows( array $items ): void {
		$this->all_items = array_values( array_filter( $items, 'is_array' ) );
	}

	public function get_columns() {
		return array(
			'cb'         => '<input type="checkbox" />',
			'question'   => __( 'Question', 'rtac' ),
			'lang'       => __( 'Language', 'rtac' ),
			'page_url'   => __( 'Page', 'rtac' ),
			'count'      => __( 'Times asked', 'rtac' ),
			'last_asked' => __( 'Last asked', 'rtac' ),
		);
	}

	protected function get_sortable_columns() {
		return array(
			'count'      => array( 'count', true ),
			'last_asked' => array( 'last_asked', true ),
			'lang'       => array( 'lang', false ),
		);
	}

	protected function get_bulk_actions() {
		return array( 'dismiss' => __( 'Dismiss', 'rtac' ) );
	}

	public function prepare_items() {
		$this->_column_headers = array( $this->get_columns(), array(), $this->get_sortable_columns(), 'question' );

		// phpcs:disable WordPress.Security.NonceVerification.Recommended -- sorting and paging only
		$orderby = isset( $_GET['orderby'] ) ? sanitize_key( wp_unslash( $_GET['orderby'] ) ) : '';
		$order   = isset( $_GET['order'] ) && 'asc' === strtolower( sanitize_key( wp_unslash( $_GET['order'] ) ) ) ? 1 : -1;
		// phpcs:enable
		$items = $this->all_items;
		if ( in_array( $orderby, array( 'count', 'last_asked', 'lang' ), true ) ) {
			usort(
				$items,
				static function ( $a, $b ) use ( $orderby, $order ) {
					return $order * ( ( $a[ $orderby ] ?? '' ) <=> ( $b[ $orderby ] ?? '' ) );
				}
			);
		}
		$total = count( $items );
		$page  = $this->get_pagenum();
		$this->items = array_slice( $items, ( $page - 1 ) * self::PER_PAGE, self::PER_PAGE );
		$this->set_pagination_args(
			array(
				'total_items' => $total,
				'per_page'    => self::PER_PAGE,
			)
		);
	}

	public function no_items() {
		if ( '' !== $this->lang ) {
			/* translators: %s: language code. */
			echo esc_html( sprintf( __( 'No open questions in %s. Every question visitors asked in this language could be answered from your site.', 'rtac' ), $this->lang ) );
			return;
		}
		esc_html_e( 'No open questions. Every question visitors asked could be answered from your site.', 'rtac' );
	}

	protected function column_cb( $item ) {
		return sprintf(
			'<label class="screen-reader-text" for="rtac-q-%1$d">%2$s</label><input type="checkbox" id="rtac-q-%1$d" name="ids[]" value="%1$d" />',
			(int) $item['id'],
			esc_html__( 'Select question', 'rtac' )
		);
	}

	protected function column_question( $item ) {
		$id      = (int) $item['id'];
		$answer  = Rtac_Admin::page_url( 'rtac-unanswered', array( 'answer' => $id ) ) . '#rtac-answer';
		$dismiss = wp_nonce_url(
			add_query_arg(
				array(
					'action' => Rtac_Admin_Unanswered::DISMISS_ACTION,
					'id'     => $id,
				),
				admin_url( 'admin-post.php' )
			),
			Rtac_Admin_Unanswered::DISMISS_ACTION . '_' . $id
		);
		$actions = array(
			'answer'  => sprintf( '<a href="%1$s">%2$s</a>', esc_url( $answer ), esc_html__( 'Add to knowledge base', 'rtac' ) ),
			'dismiss' => sprintf( '<a href="%1$s">%2$s</a>', esc_url( $dismiss ), esc_html__( 'Dismiss', 'rtac' ) ),
		);
		return '<strong>' . esc_html( (string) ( $item['question'] ?? '' ) ) . '</strong>' . $this->row_actions( $actions );
	}

	protected function column_page_url( $item ) {
		$url = (string) ( $item['page_url'] ?? '' );
		if ( '' === $url ) {
			return '—';
		}
		// The address came from a visitor's browser: a link only to this site's own pages
		// (showing the host, so the owner sees where it leads); anything else is plain text.
		$own = self::own_page( $url );
		if ( '' === $own ) {
			return '<span class="rtac-foreign-url">' . esc_html( $url ) . '</span>';
		}
		return sprintf( '<a href="%1$s" target="_blank" rel="noopener noreferrer">%2$s</a>', esc_url( $url ), esc_html( $own ) );
	}

	/** "host[:port]/path" when $url is an http(s) page of this site's own host, else ''. */
	public static function own_page( string $url ): string {
		$page = wp_parse_url( $url );
		$home = wp_parse_url( home_url( '/' ) );
		if ( ! is_array( $page ) || ! is_array( $home ) || ! in_array( strtolower( (string) ( $page['scheme'] ?? '' ) ), array( 'http', 'https' ), true )
			|| strtolower( (string) ( $page['host'] ?? '' ) ) !== strtolower( (string) ( $home['host'] ?? '' ) )
			|| ( $page['port'] ?? null ) !== ( $home['port'] ?? null ) || isset( $page['user'] ) || isset( $page['pass'] ) ) {
			return '';
		}
		return $page['host'] . ( isset( $page['port'] ) ? ':' . $page['port'] : '' ) . ( $page['path'] ?? '/' );
	}

	protected function column_last_asked( $item ) {
		return esc_html( self::local_date( (string) ( $item['last_asked'] ?? '' ) ) );
	}

	protected function column_default( $item, $column_name ) {
		return esc_html( (string) ( $item[ $column_name ] ?? '' ) );
	}

	/** An ISO-8601 UTC time in the site's timezone and date format. */
	public static function local_date( string $iso ): string {
		$ts = strtotime( $iso );
		return $ts ? wp_date( get_option( 'date_format' ) . ' ' . get_option( 'time_format' ), $ts ) : '';
	}
}
