<?php
/**
 * Assistant → Conversations (menu slug `rtac-conversations`): the owner's log of
 * what visitors asked and what the assistant answered, read live from the
 * sidecar (GET /v1/conversations, GET /v1/conversations/<id>), one page at a
 * time. Nothing of it is stored in WordPress: no option, no transient, no
 * cache beyond the request.
 *
 * Reading it takes the plugin's own capability `rtac_view_conversations`
 * (administrators have it; any role can be given it); one conversation is the
 * meta capability `rtac_view_conversation`, mapped to it in map_meta_cap.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Admin_Conversations {

	const PAGE     = 'rtac-conversations';
	const PER_PAGE = 50;

	/** The route's `flag` values => the list item's field. */
	const FLAGS = array(
		'unanswered' => 'unanswered',
		'degraded'   => 'degraded',
		'lead'       => 'lead_captured',
		'forgot'     => 'forgot',
	);

	/** Earlier pages remembered for "Newer" (cursors only; they say nothing about anyone). */
	const MAX_TRAIL = 50;

	private Rtac_Settings $settings;
	private ?Rtac_Client $client;

	public function __construct( Rtac_Settings $settings, ?Rtac_Client $client = null ) {
		$this->settings = $settings;
		$this->client   = $client;
	}

	/* ---- capabilities ---- */

	/** map_meta_cap: reading one conversation needs the primitive capability. */
	public function map_meta_cap( $caps, $cap, $user_id, $args ) {
		if ( Rtac_Registry::CAP_VIEW_CONVERSATION === $cap ) {
			return array( Rtac_Registry::CAP_VIEW_CONVERSATIONS );
		}
		return $caps;
	}

	/** Gives the capability to administrators (activation and the upgrade step). */
	public static function grant_capabilities(): void {
		$role = get_role( 'administrator' );
		if ( $role && ! $role->has_cap( Rtac_Registry::CAP_VIEW_CONVERSATIONS ) ) {
			$role->add_cap( Rtac_Registry::CAP_VIEW_CONVERSATIONS );
		}
		// The current user's capabilities were read before the role changed.
		$user = wp_get_current_user();
		if ( $user->exists() ) {
			$user->get_role_caps();
		}
	}

	/** Stops a user who may not read conversations with WordPress's own "not allowed". */
	private static function require_cap( string $cap, string $id = '' ): void {
		$allowed = '' === $id ? current_user_can( $cap ) : current_user_can( $cap, $id );
		if ( ! $allowed ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to access this page.', 'rtac' ), '', array( 'response' => 403 ) );
		}
	}

	/* ---- the sidecar ---- */

	/** A conversation id as the sidecar makes them; anything else is never sent. */
	public static function valid_id( string $id ): bool {
		return 1 === preg_match( '/^[A-Za-z0-9_-]{1,128}$/', $id );
	}

	/** An opaque cursor: printable ASCII, no spaces, bounded. */
	public static function valid_cursor( string $cursor ): bool {
		return 1 === preg_match( '/^[\x21-\x7E]{1,512}$/', $cursor );
	}

	/**
	 * One page of the log.
	 *
	 * @param array $query 'before', 'lang', 'flag' (each optional).
	 * @return array{items:array, next:string|null}|WP_Error
	 */
	public function fetch_page( array $query ) {
		$params = array( 'limit' => self::PER_PAGE );
		foreach ( array( 'before', 'lang', 'flag' ) as $key ) {
			if ( '' !== (string) ( $query[ $key ] ?? '' ) ) {
				$params[ $key ] = (string) $query[ $key ];
			}
		}
		// RFC 3986 encoding: the cursor is opaque and may hold "+", "/" or "=".
		$res = $this->client()->request( 'GET', '/v1/conversations?' . http_build_query( $params, '', '&', PHP_QUERY_RFC3986 ) );
		if ( null !== $res['error'] ) {
			return $res['error'];
		}
		$next = $res['body']['next'] ?? null;
		return array(
			'items' => is_array( $res['body']['items'] ?? null ) ? array_values( array_filter( $res['body']['items'], 'is_array' ) ) : array(),
			'next'  => is_string( $next ) && self::valid_cursor( $next ) ? $next : null,
		);
	}

	/** @return array|WP_Error One conversation with its turns. */
	public function fetch_conversation( string $id ) {
		return self::request_conversation( $this->client(), $id );
	}

	/** @return array|WP_Error One conversation with its turns, asked with the given client. */
	public static function request_conversation( Rtac_Client $client, string $id ) {
		if ( ! self::valid_id( $id ) ) {
			return new WP_Error( 'rtac_sidecar_http_404', __( 'There is no such conversation.', 'rtac' ), array( 'status' => 404 ) );
		}
		$res = $client->request( 'GET', '/v1/conversations/' . $id );
		if ( null !== $res['error'] ) {
			return $res['error'];
		}
		$body          = is_array( $res['body'] ) ? $res['body'] : array();
		$body['turns'] = is_array( $body['turns'] ?? null ) ? array_values( array_filter( $body['turns'], 'is_array' ) ) : array();
		return $body;
	}

	/* ---- screens ---- */

	public function render(): void {
		self::require_cap( Rtac_Registry::CAP_VIEW_CONVERSATIONS );
		$id = self::query_arg( 'conversation' );
		if ( '' !== $id ) {
			$this->render_conversation( $id );
			return;
		}
		$this->render_list();
	}

	/** The list's query args from the request, validated. */
	public static function list_state(): array {
		// phpcs:disable WordPress.Security.NonceVerification.Recommended -- filters and paging of a read-only screen
		$lang   = isset( $_GET['lang'] ) ? Rtac_Language::normalize( sanitize_text_field( wp_unslash( $_GET['lang'] ) ) ) : '';
		$flag   = isset( $_GET['flag'] ) ? sanitize_key( wp_unslash( $_GET['flag'] ) ) : '';
		$before = self::query_arg( 'before' );
		$trail  = self::query_arg( 'trail' );
		// phpcs:enable
		$state = array(
			'lang'   => $lang,
			'flag'   => isset( self::FLAGS[ $flag ] ) ? $flag : '',
			'before' => self::valid_cursor( $before ) ? $before : '',
			'trail'  => '',
		);
		if ( '' !== $state['before'] ) {
			$state['trail'] = self::encode_trail( self::decode_trail( $trail ) );
		}
		return $state;
	}

	/**
	 * A query argument as given (unslashed), '' when absent or not a string. The
	 * caller validates it: ids and cursors are opaque, so no sanitizer may alter them.
	 */
	public static function query_arg( string $name ): string {
		$value = $_GET[ $name ] ?? ''; // phpcs:ignore WordPress.Security.NonceVerification.Recommended,WordPress.Security.ValidatedSanitizedInput.InputNotSanitized -- read-only screens; validated by the caller
		return is_string( $value ) ? (string) wp_unslash( $value ) : '';
	}

	/** A URL of this screen; every value is URL-encoded (add_query_arg() does not encode). */
	public static function url( array $args = array() ): string {
		$args = array_filter(
			$args,
			static function ( $value ) {
				return '' !== (string) $value;
			}
		);
		return Rtac_Admin::page_url( self::PAGE, array_map( 'rawurlencode', array_map( 'strval', $args ) ) );
	}

	private function render_list(): void {
		$state = self::list_state();
		echo '<div class="wrap rtac-conversations"><h1 class="wp-heading-inline">' . esc_html__( 'Conversations', 'rtac' ) . '</h1>';
		echo '<hr class="wp-header-end" />';
		echo '<p>' . esc_html__( 'What visitors asked and what the assistant answered, newest first. The assistant service keeps conversations for its retention period and then deletes them; a customer who asks to be erased disappears from here at once.', 'rtac' ) . '</p>';

		$page = $this->fetch_page( $state );
		$this->render_filters( $state, is_wp_error( $page ) ? array() : $page['items'] );
		if ( is_wp_error( $page ) ) {
			if ( 400 === (int) ( $page->get_error_data()['status'] ?? 0 ) ) {
				echo '<div class="notice notice-warning inline"><p>' . esc_html__( 'The assistant service could not show this page of conversations.', 'rtac' ) . ' <small>' . esc_html( $page->get_error_message() ) . '</small> ';
				printf( '<a href="%1$s">%2$s</a></p></div>', esc_url( self::url() ), esc_html__( 'Show the newest conversations', 'rtac' ) );
			} else {
				Rtac_Admin::render_unreachable( $page );
			}
			echo '</div>';
			return;
		}

		$trail = self::decode_trail( $state['trail'] );
		$nav   = array(
			'newer' => null,
			'older' => null,
		);
		$base  = array(
			'lang' => $state['lang'],
			'flag' => $state['flag'],
		);
		if ( '' !== $state['before'] ) {
			$previous     = array_pop( $trail );
			$nav['newer'] = self::url(
				$base + array(
					'before' => (string) $previous,
					'trail'  => '' !== (string) $previous ? self::encode_trail( $trail ) : '',
				)
			);
			$trail[]      = (string) $previous;
		}
		if ( null !== $page['next'] ) {
			$older        = array_slice( array_merge( $trail, array( $state['before'] ) ), -self::MAX_TRAIL );
			$nav['older'] = self::url(
				$base + array(
					'before' => $page['next'],
					'trail'  => self::encode_trail( $older ),
				)
			);
		}

		$table = new Rtac_Conversations_Table();
		$table->set_page( $page['items'], $nav, $state, '' !== $state['lang'] || '' !== $state['flag'] );
		$table->prepare_items();
		$table->display();
		echo '</div>';
	}

	private function render_filters( array $state, array $items ): void {
		$langs = Rtac_Language::available();
		foreach ( $items as $item ) {
			$langs[] = Rtac_Language::normalize( (string) ( $item['lang'] ?? '' ) );
		}
		$langs[] = $state['lang'];
		$langs   = array_values( array_unique( array_filter( $langs ) ) );
		sort( $langs );
		$flags = array(
			'unanswered' => __( 'With an unanswered question', 'rtac' ),
			'degraded'   => __( 'With a degraded answer', 'rtac' ),
			'lead'       => __( 'Where contacts were left', 'rtac' ),
			'forgot'     => __( 'Where the customer had something forgotten', 'rtac' ),
		);
		echo '<form method="get" action="' . esc_url( admin_url( 'admin.php' ) ) . '" class="rtac-filters">';
		echo '<input type="hidden" name="page" value="' . esc_attr( self::PAGE ) . '" />';
		echo '<label for="rtac-filter-lang" class="screen-reader-text">' . esc_html__( 'Language', 'rtac' ) . '</label>';
		echo '<select id="rtac-filter-lang" name="lang"><option value="">' . esc_html__( 'All languages', 'rtac' ) . '</option>';
		foreach ( $langs as $code ) {
			echo '<option value="' . esc_attr( $code ) . '"' . selected( $state['lang'], $code, false ) . '>' . esc_html( $code ) . '</option>';
		}
		echo '</select> ';
		echo '<label for="rtac-filter-flag" class="screen-reader-text">' . esc_html__( 'Flag', 'rtac' ) . '</label>';
		echo '<select id="rtac-filter-flag" name="flag"><option value="">' . esc_html__( 'All conversations', 'rtac' ) . '</option>';
		foreach ( $flags as $value => $label ) {
			echo '<option value="' . esc_attr( $value ) . '"' . selected( $state['flag'], $value, false ) . '>' . esc_html( $label ) . '</option>';
		}
		echo '</select> ';
		// No name: the filter's URL carries only the page, the language and the flag.
		echo '<input type="submit" class="button" value="' . esc_attr__( 'Filter', 'rtac' ) . '" />';
		echo '</form>';
	}

	private function render_conversation( string $id ): void {
		$back = self::url( array_diff_key( self::list_state(), array( 'conversation' => true ) ) );
		echo '<div class="wrap rtac-conversation"><h1 class="wp-heading-inline">' . esc_html__( 'Conversation', 'rtac' ) . '</h1>';
		printf( ' <a class="page-title-action" href="%1$s">%2$s</a>', esc_url( $back ), esc_html__( 'Back to the conversations', 'rtac' ) );
		echo '<hr class="wp-header-end" />';
		Rtac_Admin::render_notice();
		if ( ! self::valid_id( $id ) ) {
			self::render_gone();
			echo '</div>';
			return;
		}
		self::require_cap( Rtac_Registry::CAP_VIEW_CONVERSATION, $id );

		$conversation = $this->fetch_conversation( $id );
		if ( is_wp_error( $conversation ) ) {
			if ( 404 === (int) ( $conversation->get_error_data()['status'] ?? 0 ) ) {
				self::render_gone();
			} else {
				Rtac_Admin::render_unreachable( $conversation );
			}
			echo '</div>';
			return;
		}

		$turns = $conversation['turns'];
		$lang  = Rtac_Language::normalize( (string) ( $conversation['lang'] ?? '' ) );
		$first = (string) ( $turns[0]['at'] ?? '' );
		echo '<p class="rtac-conversation-meta">';
		/* translators: %s: language code. */
		echo esc_html( sprintf( __( 'Language: %s', 'rtac' ), '' !== $lang ? $lang : '—' ) ) . ' · ';
		if ( '' !== $first ) {
			/* translators: %s: date and time. */
			echo esc_html( sprintf( __( 'Started: %s', 'rtac' ), Rtac_Unanswered_Table::local_date( $first ) ) ) . ' · ';
		}
		/* translators: %s: number of turns. */
		echo esc_html( sprintf( _n( '%s turn', '%s turns', count( $turns ), 'rtac' ), number_format_i18n( count( $turns ) ) ) );
		echo '</p>';

		if ( ! $turns ) {
			echo '<p>' . esc_html__( 'This conversation has no turns left.', 'rtac' ) . '</p></div>';
			return;
		}
		$can_answer = Rtac_Capability::can_manage();
		echo '<ol class="rtac-turns">';
		foreach ( $turns as $turn ) {
			$this->render_turn( $id, $turn, $can_answer );
		}
		echo '</ol></div>';
	}

	private function render_turn( string $id, array $turn, bool $can_answer ): void {
		$seq     = (int) ( $turn['seq'] ?? 0 );
		$action  = (string) ( $turn['action'] ?? 'none' );
		$actions = self::action_labels();
		printf( '<li class="rtac-turn" id="rtac-turn-%1$d" data-seq="%1$d">', (int) $seq );

		echo '<div class="rtac-msg rtac-msg-customer" data-role="customer">';
		printf(
			'<p class="rtac-who"><strong>%1$s</strong> <time datetime="%2$s">%3$s</time></p>',
			esc_html__( 'Customer', 'rtac' ),
			esc_attr( (string) ( $turn['at'] ?? '' ) ),
			esc_html( Rtac_Unanswered_Table::local_date( (string) ( $turn['at'] ?? '' ) ) )
		);
		echo '<div class="rtac-text">' . esc_html( (string) ( $turn['message'] ?? '' ) ) . '</div></div>';

		echo '<div class="rtac-msg rtac-msg-agent" data-role="agent">';
		echo '<p class="rtac-who"><strong>' . esc_html__( 'Assistant', 'rtac' ) . '</strong></p>';
		echo '<div class="rtac-text">' . esc_html( (string) ( $turn['reply'] ?? '' ) ) . '</div>';

		$meta = array();
		if ( 'none' !== $action && '' !== $action ) {
			/* translators: %s: what the assistant offered, e.g. "Showed the contact card". */
			$meta[] = esc_html( sprintf( __( 'Then: %s', 'rtac' ), $actions[ $action ] ?? $action ) );
		}
		foreach ( array( 'unanswered', 'degraded' ) as $field ) {
			if ( ! empty( $turn[ $field ] ) ) {
				$meta[] = sprintf( '<span class="rtac-flag rtac-flag-%1$s">%2$s</span>', esc_attr( $field ), esc_html( self::flag_labels()[ $field ] ) );
			}
		}
		if ( $meta ) {
			echo '<p class="rtac-turn-meta">' . implode( ' ', $meta ) . '</p>'; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- built from escaped parts
		}

		$sources = is_array( $turn['sources'] ?? null ) ? array_filter( $turn['sources'], 'is_array' ) : array();
		if ( $sources ) {
			echo '<div class="rtac-sources"><p>' . esc_html__( 'Sources this answer used:', 'rtac' ) . '</p><ul>';
			foreach ( $sources as $source ) {
				echo '<li>' . self::source_html( $source ) . '</li>'; // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- escaped in source_html()
			}
			echo '</ul></div>';
		}

		if ( ! empty( $turn['unanswered'] ) && $can_answer && $seq > 0 ) {
			$url = Rtac_Admin::page_url(
				Rtac_Admin_Unanswered::PAGE,
				array(
					'conversation' => $id,
					'turn'         => $seq,
				)
			) . '#rtac-answer';
			printf( '<p class="rtac-turn-answer"><a class="button" href="%1$s">%2$s</a></p>', esc_url( $url ), esc_html__( 'Add to knowledge base', 'rtac' ) );
		}
		echo '</div></li>';
	}

	private static function render_gone(): void {
		echo '<div class="notice notice-info inline"><p>' . esc_html__( 'This conversation is not available. It may have passed the retention period of the assistant service, or been erased at the customer\'s request.', 'rtac' ) . '</p></div>';
	}

	/**
	 * A source as a link when it is a page of this site, else as plain text: the
	 * log must not send the owner to addresses nobody checked.
	 */
	public static function source_html( array $source ): string {
		$title = trim( (string) ( $source['title'] ?? '' ) );
		$url   = trim( (string) ( $source['url'] ?? '' ) );
		$text  = '' !== $title ? $title : $url;
		if ( '' === $url ) {
			return esc_html( '' !== $text ? $text : __( '(untitled)', 'rtac' ) );
		}
		if ( self::is_own_url( $url ) ) {
			return sprintf( '<a href="%1$s" target="_blank" rel="noopener noreferrer">%2$s</a>', esc_url( $url ), esc_html( $text ) );
		}
		return esc_html( $text ) . ( $text !== $url ? ' <span class="rtac-source-url">(' . esc_html( $url ) . ')</span>' : '' );
	}

	/** Whether a URL is an http(s) address on this site's own host. */
	public static function is_own_url( string $url ): bool {
		$parts = wp_parse_url( $url );
		if ( ! is_array( $parts ) || ! in_array( strtolower( (string) ( $parts['scheme'] ?? '' ) ), array( 'http', 'https' ), true ) ) {
			return false;
		}
		$host = strtolower( (string) ( $parts['host'] ?? '' ) );
		if ( '' === $host ) {
			return false;
		}
		foreach ( array( home_url( '/' ), site_url( '/' ) ) as $own ) {
			if ( strtolower( (string) wp_parse_url( $own, PHP_URL_HOST ) ) === $host ) {
				return true;
			}
		}
		return false;
	}

	/** @return array<string, string> list item field => label */
	public static function flag_labels(): array {
		return array(
			'unanswered'    => __( 'Unanswered', 'rtac' ),
			'degraded'      => __( 'Degraded', 'rtac' ),
			'lead_captured' => __( 'Lead left', 'rtac' ),
			'forgot'        => __( 'Memory forgotten', 'rtac' ),
		);
	}

	/** @return array<string, string> */
	public static function action_labels(): array {
		return array(
			'offer_booking' => __( 'Offered a booking', 'rtac' ),
			'offer_lead'    => __( 'Asked for contact details', 'rtac' ),
			'show_contact'  => __( 'Showed the contact card', 'rtac' ),
		);
	}

	/* ---- the "Newer" trail: cursors of the pages before this one ---- */

	/** @param string[] $cursors */
	private static function encode_trail( array $cursors ): string {
		if ( ! $cursors ) {
			return '';
		}
		return rtrim( strtr( base64_encode( (string) wp_json_encode( array_values( $cursors ) ) ), '+/', '-_' ), '=' );
	}

	/** @return string[] */
	private static function decode_trail( string $trail ): array {
		if ( '' === $trail || ! preg_match( '/^[A-Za-z0-9_-]+$/', $trail ) ) {
			return array();
		}
		$list = json_decode( (string) base64_decode( strtr( $trail, '-_', '+/' ) ), true );
		if ( ! is_array( $list ) ) {
			return array();
		}
		$out = array();
		foreach ( array_slice( $list, -self::MAX_TRAIL ) as $cursor ) {
			if ( is_string( $cursor ) && ( '' === $cursor || self::valid_cursor( $cursor ) ) ) {
				$out[] = $cursor;
			}
		}
		return $out;
	}

	private function client(): Rtac_Client {
		return $this->client ?? Rtac_Client::from_settings( $this->settings );
	}
}
