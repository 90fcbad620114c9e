<?php
/**
 * One page of the owner's conversation log as a WP_List_Table. Rows come from
 * the sidecar (GET /v1/conversations), newest first, one page at a time: the
 * sidecar pages with an opaque cursor, so the table shows "Newer" / "Older"
 * links instead of page numbers and never knows a total.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

if ( ! class_exists( 'WP_List_Table' ) ) {
	require_once ABSPATH . 'wp-admin/includes/class-wp-list-table.php';
}

class Rtac_Conversations_Table extends WP_List_Table {

	/** @var array<int, array> */
	private array $rows = array();

	/** @var array{newer:string|null, older:string|null} URLs of the neighbouring pages */
	private array $nav = array(
		'newer' => null,
		'older' => null,
	);

	/** @var array<string, string> query args that reopen this very page (filters and cursor) */
	private array $state = array();

	private bool $filtered = false;

	public function __construct() {
		parent::__construct(
			array(
				'singular' => 'rtac-conversation',
				'plural'   => 'rtac-conversations',
				'ajax'     => false,
				'screen'   => Rtac_Admin_Conversations::PAGE,
			)
		);
	}

	/**
	 * @param array $items    The page's items as the sidecar listed them.
	 * @param array $nav      'newer' and 'older': URLs, or null at either end.
	 * @param array $state    Query args of this page, carried into each conversation's link.
	 * @param bool  $filtered Whether a language or flag filter is on (for the empty message).
	 */
	public function set_page( array $items, array $nav, array $state, bool $filtered ): void {
		$this->rows     = array_values(
			array_filter(
				$items,
				static function ( $item ) {
					return is_array( $item ) && Rtac_Admin_Conversations::valid_id( (string) ( $item['id'] ?? '' ) );
				}
			)
		);
		$this->nav      = array_merge( $this->nav, $nav );
		$this->state    = $state;
		$this->filtered = $filtered;
	}

	public function get_columns() {
		return array(
			'started_at' => __( 'Started', 'rtac' ),
			'last_at'    => __( 'Last message', 'rtac' ),
			'lang'       => __( 'Language', 'rtac' ),
			'turns'      => __( 'Turns', 'rtac' ),
			'flags'      => __( 'Flags', 'rtac' ),
		);
	}

	public function prepare_items() {
		$this->_column_headers = array( $this->get_columns(), array(), array(), 'started_at' );
		$this->items           = $this->rows;
	}

	public function no_items() {
		if ( $this->filtered ) {
			esc_html_e( 'No conversations match these filters.', 'rtac' );
		} else {
			esc_html_e( 'No conversations yet. When visitors chat with the assistant, their conversations appear here for as long as the assistant service keeps them.', 'rtac' );
		}
	}

	/** Cursor paging: "Newer" and "Older" instead of page numbers. */
	protected function pagination( $which ) {
		if ( null === $this->nav['newer'] && null === $this->nav['older'] ) {
			return;
		}
		echo '<div class="tablenav-pages rtac-cursor-nav"><span class="pagination-links">';
		self::nav_link( $this->nav['newer'], __( '‹ Newer', 'rtac' ), __( 'Newer conversations', 'rtac' ), 'prev-page' );
		echo ' ';
		self::nav_link( $this->nav['older'], __( 'Older ›', 'rtac' ), __( 'Older conversations', 'rtac' ), 'next-page' );
		echo '</span></div>';
	}

	private static function nav_link( ?string $url, string $text, string $label, string $class ): void {
		if ( null === $url ) {
			printf( '<span class="tablenav-pages-navspan button disabled" aria-hidden="true">%s</span>', esc_html( $text ) );
			return;
		}
		printf(
			'<a class="%1$s button" href="%2$s" rel="%3$s"><span class="screen-reader-text">%4$s</span><span aria-hidden="true">%5$s</span></a>',
			esc_attr( $class ),
			esc_url( $url ),
			'prev-page' === $class ? 'prev' : 'next',
			esc_html( $label ),
			esc_html( $text )
		);
	}

	protected function column_started_at( $item ) {
		$url  = Rtac_Admin_Conversations::url( array_merge( $this->state, array( 'conversation' => (string) $item['id'] ) ) );
		$when = Rtac_Unanswered_Table::local_date( (string) ( $item['started_at'] ?? '' ) );
		$text = '' !== $when ? $when : __( '(unknown time)', 'rtac' );
		return sprintf( '<strong><a class="row-title" href="%1$s">%2$s</a></strong>', esc_url( $url ), esc_html( $text ) )
			. $this->row_actions( array( 'view' => sprintf( '<a href="%1$s">%2$s</a>', esc_url( $url ), esc_html__( 'Read the conversation', 'rtac' ) ) ) );
	}

	protected function column_last_at( $item ) {
		return esc_html( Rtac_Unanswered_Table::local_date( (string) ( $item['last_at'] ?? '' ) ) );
	}

	protected function column_lang( $item ) {
		return esc_html( Rtac_Language::normalize( (string) ( $item['lang'] ?? '' ) ) );
	}

	protected function column_turns( $item ) {
		return esc_html( number_format_i18n( (int) ( $item['turns'] ?? 0 ) ) );
	}

	protected function column_flags( $item ) {
		$out = array();
		foreach ( Rtac_Admin_Conversations::flag_labels() as $field => $label ) {
			if ( ! empty( $item[ $field ] ) ) {
				$out[] = sprintf( '<span class="rtac-flag rtac-flag-%1$s">%2$s</span>', esc_attr( str_replace( '_', '-', $field ) ), esc_html( $label ) );
			}
		}
		return $out ? implode( ' ', $out ) : '<span aria-hidden="true">—</span>';
	}

	protected function column_default( $item, $column_name ) {
		return esc_html( (string) ( $item[ $column_name ] ?? '' ) );
	}
}
